import type { Generated } from 'kysely';

/** Failure triage (migrations 0041 and 0043, docs/api-decisions.md#failure-triage). */

/** A failed or blocked result's signature, written with the result by the runs module. */
export interface FailureSignaturesTable {
  result_id: number;
  tenant_id: string;
  project_id: string;
  run_id: number;
  tcase_id: string;
  /** 32 hex characters (src/lib/failure-signature.ts). */
  signature: string;
  /** The normalised message's first line. */
  label: string;
  /** The result's own `created_at`. */
  created_at: string;
  /** The normaliser's SIGNATURE_VERSION that signed it (1: rows from before migration 0043); older ones are re-signed. */
  version: Generated<number>;
}

/** A project's signature marked as known (a known problem, not new): one row per project and signature. */
export interface KnownFailuresTable {
  tenant_id: string;
  project_id: string;
  signature: string;
  label: string;
  /** The run it was marked from; null once that run is deleted. */
  run_id: number | null;
  marked_by: number | null;
  /** Plain text; "" when none. */
  note: string;
  marked_at: string;
}

export interface TriageTables {
  failure_signatures: FailureSignaturesTable;
  known_failures: KnownFailuresTable;
}
