/** Kysely table types of OpenID Connect sign-in (migration 0040_oidc_providers_additive). */

/** An identity provider of the tenant, configured by its admins. */
export interface OidcProvidersTable {
  id: string;
  tenant_id: string;
  name: string;
  /** name lower-cased: unique per tenant. */
  name_norm: string;
  issuer: string;
  client_id: string;
  /** Sealed with the secret key; never answered. */
  client_secret_enc: string;
  enabled: number;
  /** 1: unknown people get an account at their first sign-in. */
  just_in_time: number;
  default_role: string;
  /** JSON array of extra scopes. */
  scopes: string;
  name_claim: string;
  groups_claim: string;
  /** JSON [{group, role}], first match wins. */
  role_rules: string;
  /** JSON [{group, projectIds}]. */
  project_rules: string;
  /** JSON: the outcome of the last "Test sign-in" (migration 0045), null before the first. */
  last_test: string | null;
  created_at: string;
  updated_at: string;
}

/** A person as a provider knows them (its `sub`), linked to a Casebook user at their first sign-in. */
export interface OidcIdentitiesTable {
  provider_id: string;
  subject: string;
  tenant_id: string;
  user_id: number;
  created_at: string;
  last_sign_in_at: string;
}

/** A sign-in under way: what the callback checks, used once. */
export interface OidcSignInsTable {
  /** sha256 of the state. */
  id: string;
  tenant_id: string;
  provider_id: string;
  nonce: string;
  code_verifier: string;
  redirect_uri: string;
  return_to: string;
  /** The admin who started it when it is a "Test sign-in" (migration 0045): no session, no account change. */
  test_user_id: number | null;
  created_at: string;
  expires_at: string;
}

export interface OidcTables {
  oidc_providers: OidcProvidersTable;
  oidc_identities: OidcIdentitiesTable;
  oidc_sign_ins: OidcSignInsTable;
}
