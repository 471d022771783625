/** Kysely table types of SAML 2.0 sign-in (migration 0044_saml_providers_additive). */

/** An identity provider of the tenant (SAML), configured by its admins. */
export interface SamlProvidersTable {
  id: string;
  tenant_id: string;
  name: string;
  /** name lower-cased: unique per tenant. */
  name_norm: string;
  idp_entity_id: string;
  sso_url: string;
  /** PEM of the IdP's signing certificate (public; pinned). */
  idp_cert: string;
  enabled: number;
  /** 1: unsolicited (IdP-initiated) answers are taken. */
  allow_idp_initiated: number;
  /** 1: unknown people get an account at their first sign-in. */
  just_in_time: number;
  default_role: string;
  email_attribute: string;
  name_attribute: string;
  groups_attribute: string;
  /** JSON [{group, role}], first match wins. */
  role_rules: string;
  /** JSON [{group, projectIds}]. */
  project_rules: string;
  created_at: string;
  updated_at: string;
}

/** A person as an IdP knows them (the NameID), linked to a Casebook user at their first sign-in. */
export interface SamlIdentitiesTable {
  provider_id: string;
  subject: string;
  tenant_id: string;
  user_id: number;
  created_at: string;
  last_sign_in_at: string;
}

/** An AuthnRequest under way: its ID, used once by the answer naming it. */
export interface SamlRequestsTable {
  id: string;
  tenant_id: string;
  provider_id: string;
  /** sha256 of the browser cookie's value. */
  browser_hash: string;
  return_to: string;
  created_at: string;
  expires_at: string;
}

/** An assertion taken, remembered until it expires. */
export interface SamlAssertionsTable {
  provider_id: string;
  assertion_id: string;
  tenant_id: string;
  expires_at: string;
}

export interface SamlTables {
  saml_providers: SamlProvidersTable;
  saml_identities: SamlIdentitiesTable;
  saml_requests: SamlRequestsTable;
  saml_assertions: SamlAssertionsTable;
}
