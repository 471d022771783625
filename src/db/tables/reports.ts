import type { Generated } from 'kysely';

/** Kysely table types of the shared report links (migration 0019_report_shares). */
export interface ReportSharesTable {
  id: Generated<number>;
  tenant_id: string;
  project_id: string;
  kind: string;
  /** JSON object of the report's parameters. */
  params: string;
  /** sha256 of the token; the token itself is never stored. */
  token_hash: string;
  created_by: number | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export interface ReportsTables {
  report_shares: ReportSharesTable;
}
