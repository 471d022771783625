import type { ColumnType, Generated } from 'kysely';

/** Kysely table types of the runs, run test cases, results, run logs, test plans (migration 0005_execution). */

export interface PlansTable {
  id: Generated<number>;
  tenant_id: string;
  project_id: string;
  title: string;
  description: string;
  milestone_id: number | null;
  /** milestone_id or 0: unique (project_id, milestone_key, title) enforces D20. */
  milestone_key: number;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  /** Closing a plan closes its open runs; a closed plan takes no changes (migration 0029). */
  closed_at: Generated<string | null>;
  closed_by: Generated<number | null>;
}

export interface RunsTable {
  id: Generated<number>;
  tenant_id: string;
  project_id: string;
  /** static | static_struct | live */
  type: string;
  title: string;
  description: string;
  plan_id: number | null;
  /** plan_id or 0: unique (project_id, plan_key, title) enforces D10. */
  plan_key: number;
  milestone_id: number | null;
  assignment_id: number | null;
  configuration_id: string | null;
  /** D19: 1 when created through an API key. */
  is_automated: number;
  time_spent: number | null;
  /** JSON array of query plans ({tcaseIds?, folderIds?, tagIds?, priorities?}). */
  query_plans: string;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  closed_by: number | null;
  /** The run's due date, YYYY-MM-DD (migration 0042); NULL: none. Absent from inserts: none. */
  due_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** Bumped whenever cases join or leave the open run (add/remove, D17 propagation); migration 0012. */
  membership_version: Generated<number>;
  /** Status counters over in_run = 1 rows, kept current in the writing transaction. */
  cnt_open: number;
  cnt_passed: number;
  cnt_failed: number;
  cnt_blocked: number;
  cnt_skipped: number;
  cnt_custom1: number;
  cnt_custom2: number;
  cnt_custom3: number;
  cnt_custom4: number;
}

export interface RunTcasesTable {
  tenant_id: string;
  run_id: number;
  tcase_id: string;
  status: string;
  is_automated: number;
  /** NULL = follows the test case's latest version (open cases of static_struct/live runs); set = pinned. */
  version: number | null;
  /** 0: a live-run case that stopped matching; its row and results are kept. */
  in_run: number;
  /** NULL until the run is closed (D17: closing freezes folders and positions). */
  frozen_folder_id: number | null;
  frozen_pos: number | null;
  latest_result_id: number | null;
  updated_at: string;
  /** Who is to run the case in this run (migration 0028); NULL: nobody. Absent from inserts: nobody. */
  assignee_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** The assignment's due date, YYYY-MM-DD (migration 0042); NULL: none. Cleared when the case is unassigned. */
  due_at: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ResultsTable {
  id: Generated<number>;
  tenant_id: string;
  run_id: number;
  tcase_id: string;
  tcase_version: number;
  status: string;
  /** Sanitised HTML (D22). */
  comment: string;
  time_taken: number | null;
  author_id: number | null;
  api_key_id: string | null;
  internal: number;
  created_at: string;
}

/** A nullable text column an insert may leave out. */
type OptionalText = ColumnType<string | null, string | null | undefined, string | null>;

export interface ResultLinksTable {
  id: Generated<number>;
  tenant_id: string;
  result_id: number;
  /** The result's run (migration 0020): the defects report reads links by run. */
  run_id: number;
  /** null for a plain link (D24, migration 0008). */
  integration_id: string | null;
  url: string;
  text: string;
  /** JSON object. */
  meta: string;
  /** Tracker comment-back (D24, migration 0014): pending | posted | failed; null when no comment is due. */
  comment_status: OptionalText;
  /** The tracker's id of the posted comment. */
  comment_id: OptionalText;
  /** Why the comment failed (never a credential). */
  comment_error: OptionalText;
  /** When the outcome was last written. */
  comment_at: OptionalText;
  /** Who added the link after its result was recorded (failure triage, migration 0041); null: the result's author. */
  linked_by: ColumnType<number | null, number | null | undefined, number | null>;
  /** When that was; null: the result's time. */
  linked_at: OptionalText;
}

/** A result's outcome of one step of its case version (extensions.md §8, migration 0034). */
export interface ResultStepsTable {
  tenant_id: string;
  result_id: number;
  run_id: number;
  /** 1-based place of the step in the version's steps. */
  position: number;
  /** The step's id there: a standalone step's or a shared step's (its `type` follows from the version). */
  step_id: number;
  status: string;
  /** Sanitised HTML (D22); "" when none. */
  comment: string;
}

/** A file a result names (extensions.md §8, migration 0046), in the result's order. */
export interface ResultFilesTable {
  tenant_id: string;
  result_id: number;
  run_id: number;
  /** 1-based place of the file among the result's. */
  position: number;
  file_id: string;
}

export interface RunLogsTable {
  id: string;
  tenant_id: string;
  run_id: number;
  comment: string;
  author_id: number | null;
  created_at: string;
}

export interface ExecutionTables {
  plans: PlansTable;
  runs: RunsTable;
  run_tcases: RunTcasesTable;
  results: ResultsTable;
  result_links: ResultLinksTable;
  result_steps: ResultStepsTable;
  result_files: ResultFilesTable;
  run_logs: RunLogsTable;
}
