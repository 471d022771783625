import type { Generated } from 'kysely';

/** A requirement a test case links to; the same text and url in a project is the same requirement. */
export interface RequirementsTable {
  /** Random string id (docs/api-decisions.md#response-shapes: requirement ids are strings). */
  id: string;
  tenant_id: string;
  project_id: string;
  text: string;
  /** An absolute URL, or '' when none. */
  url: string;
  created_at: string;
}

/** The head of a shared step: its latest title and version, and the soft-delete mark. */
export interface SharedStepsTable {
  id: Generated<number>;
  tenant_id: string;
  project_id: string;
  title: string;
  version: number;
  created_at: string;
  /** When the latest version was made. */
  updated_at: string;
  deleted_at: string | null;
}

export interface SharedStepVersionsTable {
  id: Generated<number>;
  tenant_id: string;
  shared_step_id: number;
  version: number;
  title: string;
  created_at: string;
}

/** Sub-steps of one version of a shared step, in `pos` order (0-based). */
export interface SharedSubStepsTable {
  id: Generated<number>;
  tenant_id: string;
  shared_step_id: number;
  version: number;
  pos: number;
  /** HTML (D22). */
  description: string;
  /** HTML (D22). */
  expected: string;
}

export interface SharedPreconditionsTable {
  id: Generated<number>;
  tenant_id: string;
  project_id: string;
  title: string;
  version: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface SharedPreconditionVersionsTable {
  id: Generated<number>;
  tenant_id: string;
  shared_precondition_id: number;
  version: number;
  title: string;
  /** HTML (D22). */
  text: string;
  created_at: string;
}

/** Kysely table types of the test-case repository's shared resources (migration 0003_repository). */
export interface RepositoryTables {
  requirements: RequirementsTable;
  shared_steps: SharedStepsTable;
  shared_step_versions: SharedStepVersionsTable;
  shared_sub_steps: SharedSubStepsTable;
  shared_preconditions: SharedPreconditionsTable;
  shared_precondition_versions: SharedPreconditionVersionsTable;
}
