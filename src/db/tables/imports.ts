import type { Generated } from 'kysely';

/** Kysely table types of test-case imports (migration 0023_imports). */
export interface ImportsTable {
  id: Generated<number>;
  tenant_id: string;
  project_id: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  format: string;
  /** JSON object of the request's options. */
  options: string;
  file_key: string | null;
  /** The backend `file_key` is in (local, postgres, s3). */
  file_storage: string | null;
  run_token: string | null;
  total: Generated<number>;
  done: Generated<number>;
  created: Generated<number>;
  updated: Generated<number>;
  skipped: Generated<number>;
  /** JSON array of {row, field?, message}. */
  errors: Generated<string>;
  /** JSON array of {row, field?, message}: what rows held that the import could not keep (migration 0032). */
  warnings: Generated<string>;
  /** JSON object {<kind>: {inFile, created, updated, leftOut}} (migration 0034). */
  reconciliation: Generated<string>;
  created_by: number | null;
  created_at: string;
  finished_at: string | null;
}

/** The cases an import created (an import that fails part-way deletes them). */
export interface ImportCreatedTable {
  import_id: number;
  tcase_id: string;
}

/** The folders an import created (migration 0032). */
export interface ImportFoldersTable {
  import_id: number;
  folder_id: number;
}

/** The cases an import changed, with the version each had before (migration 0032). */
export interface ImportVersionsTable {
  import_id: number;
  tcase_id: string;
  version: number;
}

/** A project import from a Casebook archive (migration 0031_project_imports). */
export interface ProjectImportsTable {
  id: Generated<number>;
  tenant_id: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  /** The code asked for, or null: the archive's. */
  code: string | null;
  file_key: string | null;
  file_storage: string | null;
  /** The project written so far (removed again when the import fails). */
  project_id: string | null;
  total: Generated<number>;
  done: Generated<number>;
  error: string | null;
  created_by: number | null;
  created_at: string;
  finished_at: string | null;
}

export interface ImportsTables {
  imports: ImportsTable;
  import_created: ImportCreatedTable;
  import_folders: ImportFoldersTable;
  import_versions: ImportVersionsTable;
  project_imports: ProjectImportsTable;
}
