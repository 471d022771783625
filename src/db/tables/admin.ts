import type { ColumnType, Generated } from 'kysely';

/** Kysely table types of the administration (integrations, invitations, password resets, two-factor) (migration 0006_admin). */

// ---- integrations (ADMIN-B) ----

export interface IntegrationsTable {
  id: string;
  tenant_id: string;
  name: string;
  /** tracker_a | tracker_b | tracker_c | custom */
  type: string;
  /** JSON of the non-secret settings. */
  config: string;
  /** AES-256-GCM ciphertext of the credential (`v1:<iv>:<tag>:<data>`, base64url), or null. */
  token_enc: string | null;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

/** The link between a project and an integration; one per (project, type). */
export interface IntegrationProjectsTable {
  tenant_id: string;
  project_id: string;
  integration_id: string;
  type: string;
  /** JSON of the per-project settings (repo; projectId, projectName; teamId, teamName). */
  config: string;
  created_at: string;
  updated_at: string;
}

// ---- end integrations (ADMIN-B) ----

// ---- accounts and sign-in (ADMIN-A) ----

export interface InvitationsTable {
  id: string;
  tenant_id: string;
  email: string;
  email_norm: string;
  role: string;
  /** sha256 of the one-time token; the token itself is never stored. */
  token_hash: string;
  invited_by: number;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  cancelled_at: string | null;
  /** JSON array of the project ids the invitation grants (0035); null: none named. */
  project_ids: string | null;
  /** 1: every project, those made later too (0035). */
  all_projects: Generated<number>;
}

export interface PasswordResetsTable {
  /** sha256 of the one-time token. */
  token_hash: string;
  tenant_id: string;
  user_id: number;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface TwoFactorTable {
  user_id: number;
  tenant_id: string;
  /** The TOTP secret, AES-256-GCM encrypted with the configured secret key. */
  secret_enc: string;
  /** null while set-up is pending. */
  enabled_at: string | null;
  /** The last accepted TOTP time step: a code is accepted once. */
  last_step: ColumnType<number, number | undefined, number>;
  created_at: string;
  updated_at: string;
}

export interface RecoveryCodesTable {
  id: Generated<number>;
  tenant_id: string;
  user_id: number;
  /** sha256 of the recovery code. */
  code_hash: string;
  used_at: string | null;
}

export interface SignInFailuresTable {
  id: Generated<number>;
  tenant_id: string;
  email_norm: string;
  ip: string;
  created_at: string;
}

/** A counted attempt of a throttled action (reset requests, device user-code lookups). */
export interface ThrottleHitsTable {
  id: Generated<number>;
  tenant_id: string;
  bucket: string;
  created_at: string;
}

/** An address that completed a sign-in to an account (by normalised e-mail), and when it last did. */
export interface SignInKnownAddressesTable {
  id: Generated<number>;
  tenant_id: string;
  email_norm: string;
  ip: string;
  last_at: string;
}

// ---- end accounts and sign-in (ADMIN-A) ----

export interface AdminTables {
  integrations: IntegrationsTable;
  integration_projects: IntegrationProjectsTable;
  // ADMIN-A
  invitations: InvitationsTable;
  password_resets: PasswordResetsTable;
  two_factor: TwoFactorTable;
  recovery_codes: RecoveryCodesTable;
  sign_in_failures: SignInFailuresTable;
  throttle_hits: ThrottleHitsTable;
  sign_in_known_addresses: SignInKnownAddressesTable;
}
