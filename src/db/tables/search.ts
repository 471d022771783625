import type { ColumnType, Generated } from 'kysely';

/**
 * The full-text document of each live test case at its latest version (migration 0024): the plain text
 * of its title and of its precondition, steps and expected results. Rewritten in the transaction of every case
 * write; a deleted case has none.
 */
export interface TcaseSearchDocsTable {
  /** The FTS5 rowid on SQLite (`tcase_search` indexes this table as its external content). */
  id: Generated<number>;
  tenant_id: string;
  project_id: string;
  tcase_id: string;
  title: string;
  /** Precondition, then each step's description and expected result, joined by " · ". */
  body: string;
  /** PostgreSQL only: the weighted tsvector (title A, body D) of the folded words; written, never read. */
  doc: ColumnType<never, unknown | undefined, unknown>;
}

/** SQLite only: the FTS5 index over tcase_search_docs (title, body). Queried through src/db/full-text.ts. */
export interface TcaseSearchFtsTable {
  rowid: number;
  title: string;
  body: string;
}

export interface SearchTables {
  tcase_search_docs: TcaseSearchDocsTable;
  tcase_search: TcaseSearchFtsTable;
}
