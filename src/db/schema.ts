import type { ColumnType, Generated } from 'kysely';
import type { AdminTables } from './tables/admin.js';
import type { ExecutionTables } from './tables/execution.js';
import type { FilesTables } from './tables/files.js';
import type { JobsTables } from './tables/jobs.js';
import type { ImportsTables } from './tables/imports.js';
import type { RepositoryTables } from './tables/repository.js';
import type { OAuthTables } from './tables/oauth.js';
import type { OidcTables } from './tables/oidc.js';
import type { SamlTables } from './tables/saml.js';
import type { IdempotencyTables } from './tables/idempotency.js';
import type { InstanceTables } from './tables/instance.js';
import type { ReportsTables } from './tables/reports.js';
import type { SearchTables } from './tables/search.js';
import type { ViewsTables } from './tables/views.js';
import type { ScimTables } from './tables/scim.js';
import type { TriageTables } from './tables/triage.js';

/**
 * Kysely table types. Conventions (both databases):
 * - timestamps are ISO 8601 strings with milliseconds in UTC (`2026-11-22T10:00:00.000Z`), so they sort as text;
 * - booleans are integers 0/1; JSON is stored as text and parsed in repositories;
 * - every tenant-owned row carries `tenant_id` (D1).
 * Modules added later declare their tables in `src/db/tables/<module>.ts` and are joined into `Database` below.
 */

export interface TenantsTable {
  id: string;
  name: string;
  host: string | null;
  suspended_at: string | null;
  /** JSON array of feature names, e.g. `["advanced-auth"]` (D6). */
  features: string;
  /** 1: new members join every project, those made later too (0035). */
  members_join_all_projects: Generated<number>;
  /** `everyone`, or `owners`: only the owner signs in with a password, everyone else through a provider (0045). */
  password_sign_in: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface UsersTable {
  id: Generated<number>;
  tenant_id: string;
  email: string;
  /** Lower-cased e-mail; unique per tenant. */
  email_norm: string;
  name: string;
  role: string;
  password_hash: string | null;
  avatar: string | null;
  deactivated_at: string | null;
  /** 1: a member of every project, those made later too (0035). */
  joins_new_projects: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** What an api_keys row is: a key, a device sign-in, an OAuth client's sign-in, or a SCIM provisioning key. */
export type ApiKeyKind = 'key' | 'device' | 'oauth' | 'scim';

export interface ApiKeysTable {
  /** The `<keyId>` part of `<tenantId>.<keyId>.<secret>` (D2). */
  id: string;
  tenant_id: string;
  user_id: number;
  name: string;
  /** sha256 of the secret; the secret itself is never stored. */
  secret_hash: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  /**
   * 'key'; 'device': a device sign-in (`qasphere auth login`); 'oauth': a sign-in of an OAuth client (an MCP
   * client, authorization code grant) — the secret of these two rotates on refresh; 'scim': an identity
   * provider's provisioning credential, accepted only under /scim/v2.
   */
  kind: ColumnType<ApiKeyKind, ApiKeyKind | undefined, ApiKeyKind>;
  /** The OAuth client of a device or OAuth sign-in; null for keys. */
  client_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface SessionsTable {
  /** sha256 of the session token. */
  id: string;
  tenant_id: string;
  user_id: number;
  ip: string;
  user_agent: string;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
}

export interface ProjectsTable {
  id: string;
  tenant_id: string;
  code: string;
  /** Upper-cased code: codes are unique and resolved case-insensitively. */
  code_norm: string;
  title: string;
  overview_title: string;
  overview_description: string;
  /** JSON array of {url, text}. */
  links: string;
  created_by: number | null;
  /** Next test-case sequence number to hand out; bumped in the creating transaction. */
  next_tcase_seq: number;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

export interface ProjectMembersTable {
  tenant_id: string;
  project_id: string;
  user_id: number;
  created_at: string;
}

export interface FoldersTable {
  id: Generated<number>;
  tenant_id: string;
  project_id: string;
  /** 0 for a root folder. */
  parent_id: number;
  title: string;
  comment: string;
  pos: number;
  created_at: string;
  updated_at: string;
  /**
   * Set when the folder was deleted (a tombstone: soft-deleted test cases still point at it). A deleted folder
   * also leaves its siblings' title namespace: its parent_id becomes -id, so the title can be used again.
   */
  deleted_at: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface AuditEventsTable {
  id: Generated<number>;
  tenant_id: string;
  user_id: number | null;
  action: string;
  ip: string;
  user_agent: string;
  /** JSON object, or null when empty. */
  meta: string | null;
  created_at: string;
}

// ---- test-case repository (migration 0002) ----

export interface TagsTable {
  id: Generated<number>;
  tenant_id: string;
  project_id: string;
  title: string;
  created_at: string;
}

export interface MilestonesTable {
  id: Generated<number>;
  tenant_id: string;
  project_id: string;
  title: string;
  /** Plain text, '' when none (migration 0029). */
  description: Generated<string>;
  /** A calendar date YYYY-MM-DD, or null (migration 0029). */
  due: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

export interface ConfigurationsTable {
  id: string;
  tenant_id: string;
  project_id: string;
  title: string;
  created_at: string;
  updated_at: string;
}

export interface TcasesTable {
  /** Random, never all digits (digits in a path mean a seq). */
  id: string;
  tenant_id: string;
  project_id: string;
  seq: number;
  legacy_id: string;
  /** standalone | template | filled */
  type: string;
  folder_id: number;
  pos: number;
  is_draft: number;
  /** For filled cases: the template they were filled from. */
  template_id: string | null;
  /** The latest version number (D15). */
  version: number;
  /** Title of the latest version (mirror of tcase_versions.title, kept in the writing transaction). */
  title: Generated<string>;
  /** Priority of the latest version (mirror, like title). */
  priority: Generated<string>;
  author_id: number;
  created_at: string;
  updated_at: string;
  /** Soft delete: results in runs that reference the case are kept. */
  deleted_at: string | null;
}

/** One row per version of a test case (D15): everything versioned lives here. */
export interface TcaseVersionsTable {
  id: Generated<number>;
  tenant_id: string;
  tcase_id: string;
  version: number;
  title: string;
  /** high | medium | low */
  priority: string;
  /** Precondition text (HTML) as shown at this version; mirrored to the deprecated `comment`. */
  comment: string;
  /** 1 when there is neither precondition text nor any step. */
  is_empty: number;
  /** JSON: the precondition reference, e.g. {"type":"standalone","id":3} or {"type":"shared","id":4}. */
  precondition: string;
  /** JSON array of step references, e.g. [{"type":"standalone","id":1},{"type":"shared","id":2}]. */
  steps: string;
  /** JSON array of tag ids. */
  tag_ids: string;
  /** JSON array of requirement ids. */
  requirement_ids: string;
  /** JSON array of {text, url}. */
  links: string;
  /** JSON object systemName → {value, isDefault}. */
  custom_fields: string;
  /** JSON array of file ids. */
  file_ids: string;
  /** JSON: templates: {suffixParams: string[]}; filled cases: {values: {name: value}}. */
  template_data: string;
  author_id: number;
  created_at: string;
}

/** Tags of the latest version of each test case, for filtering (kept in the writing transaction). */
export interface TcaseTagsTable {
  tenant_id: string;
  tcase_id: string;
  tag_id: number;
}

/** Custom-field values of the latest version of each test case, for `cf_<name>` filters. */
export interface TcaseCustomValuesTable {
  tenant_id: string;
  tcase_id: string;
  field_id: string;
  value: string;
}

/** A standalone step: immutable, shared by every version of its test case that shows the same text (D15). */
export interface StepsTable {
  id: Generated<number>;
  tenant_id: string;
  tcase_id: string;
  description: string;
  expected: string;
  created_at: string;
}

/** A standalone precondition: immutable like steps; every test case has one, possibly with empty text. */
export interface PreconditionsTable {
  id: Generated<number>;
  tenant_id: string;
  project_id: string;
  tcase_id: string;
  text: string;
  created_at: string;
}

/** Requirements of the latest version of each live test case (filters, `tcaseCount`). */
export interface TcaseRequirementsTable {
  tenant_id: string;
  tcase_id: string;
  requirement_id: string;
}

/** Shared steps used by the latest version of each live test case (`tcaseCount`, 409 on delete). */
export interface TcaseSharedStepsTable {
  tenant_id: string;
  tcase_id: string;
  shared_step_id: number;
}

/** Shared preconditions used by the latest version of each live test case. */
export interface TcaseSharedPreconditionsTable {
  tenant_id: string;
  tcase_id: string;
  shared_precondition_id: number;
}

export interface CustomFieldsTable {
  id: string;
  tenant_id: string;
  /** text | dropdown | checkbox | richtext */
  type: string;
  system_name: string;
  name: string;
  required: number;
  enabled: number;
  /** JSON array of {id, value}, or null for types without options. */
  options: string | null;
  default_value: string | null;
  pos: number;
  allow_all_projects: number;
  /** JSON array of project ids, or null when allow_all_projects. */
  allowed_project_ids: string | null;
  created_at: string;
  updated_at: string;
}

/** The tenant's result statuses (D23): built-ins plus custom1–4. */
export interface StatusesTable {
  tenant_id: string;
  id: string;
  name: string;
  color: string;
  is_active: number;
  updated_at: string;
}

export interface CoreTables {
  tenants: TenantsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  folders: FoldersTable;
  audit_events: AuditEventsTable;
  tags: TagsTable;
  milestones: MilestonesTable;
  configurations: ConfigurationsTable;
  tcases: TcasesTable;
  tcase_versions: TcaseVersionsTable;
  tcase_tags: TcaseTagsTable;
  tcase_custom_values: TcaseCustomValuesTable;
  steps: StepsTable;
  preconditions: PreconditionsTable;
  tcase_requirements: TcaseRequirementsTable;
  tcase_shared_steps: TcaseSharedStepsTable;
  tcase_shared_preconditions: TcaseSharedPreconditionsTable;
  custom_fields: CustomFieldsTable;
  statuses: StatusesTable;
}

export type Database = CoreTables &
  RepositoryTables &
  FilesTables &
  ExecutionTables &
  AdminTables &
  OAuthTables &
  OidcTables &
  SamlTables &
  JobsTables &
  IdempotencyTables &
  InstanceTables &
  ReportsTables &
  ImportsTables &
  SearchTables &
  ViewsTables &
  ScimTables &
  TriageTables;
