import type { Generated } from 'kysely';

/** Kysely table types of the saved views (migration 0030_saved_views). */
export interface SavedViewsTable {
  id: Generated<number>;
  tenant_id: string;
  project_id: string;
  owner_id: number;
  /** 'repository' | 'runs'. */
  page: string;
  name: string;
  /** The name lower-cased: unique per owner and page in a project. */
  name_norm: string;
  /** JSON object of the page's address search parameters. */
  filters: string;
  /** 0/1: shared with everyone who reads the project. */
  shared: number;
  created_at: string;
  updated_at: string;
}

export interface ViewsTables {
  saved_views: SavedViewsTable;
}
