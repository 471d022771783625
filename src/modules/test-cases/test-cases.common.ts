import type { Db } from '../../db/create-db.js';
import { type ErrorDetail, validationFailed } from '../../errors.js';
import type { Actor } from '../../auth/actor.js';
import type { AuditAction } from '../audit/audit-actions.js';
import { recordAudit, type AuditMeta } from '../audit/audit.service.js';
import { listFieldsBySystemName } from '../custom-fields/custom-fields.service.js';
import { allocateTcaseSeqs } from '../projects/projects.service.js';

/* What the test-case files share: limits, the validation error, transactions and the per-project write lock. */

export const TITLE_MAX = 511;
/**
 * Page size when a list request names none: the maximum. Clients that page (the CLI, the MCP server)
 * always send `limit`; a bare request gets every case of a normal project in one answer, and is still
 * bounded for very large ones.
 */
export const DEFAULT_LIMIT = 5000;

/** systemName → field id, for `cf_` filters and the `tcase_custom_values` rows. */
export const customFieldIdsBySystemName = async (db: Db, tenantId: string): Promise<Map<string, string>> =>
  new Map([...(await listFieldsBySystemName(db, tenantId))].map(([name, f]) => [name, f.id]));

export const fail = (errors: ErrorDetail[]) => validationFailed(errors);

export const inTransaction = <T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> =>
  db.isTransaction ? work(db) : db.transaction().execute(work);

/**
 * Serialises the test-case writes of one project. Taking the project row lock (an update of zero
 * sequence numbers) first makes positions and versions computed afterwards safe against concurrent
 * writers on PostgreSQL; SQLite runs one writer at a time anyway.
 */
export const lockProject = (trx: Db, projectId: string) => allocateTcaseSeqs(trx, projectId, 0);

/**
 * What the rest of the application does when test cases were created, edited, moved, tagged or deleted, called
 * inside the writing transaction: open live runs re-evaluate their query plans (D17). The caller hands it in
 * (AppContext.tcasesChanged), so test cases know nothing of runs.
 */
export type TcasesChanged = (
  trx: Db,
  tenantId: string,
  projectId: string,
  tcaseIds: string[],
) => Promise<void>;

/** How many case ids a test-case audit event names; `count` always says how many there were. */
const AUDIT_IDS_MAX = 100;

/**
 * One audit event per request that created, edited, moved or deleted cases (docs/api-decisions.md#audit-events),
 * inside the writing transaction: the project, the number of cases and the first 100 of their ids. None when the
 * request changed nothing.
 */
export async function auditCases(
  trx: Db,
  actor: Actor,
  project: { id: string; code: string },
  action: Extract<AuditAction, `tcase.${string}`>,
  ids: string[],
  extra: AuditMeta = {},
): Promise<void> {
  if (ids.length === 0) return;
  await recordAudit(trx, actor, action, {
    project_id: project.id,
    project_code: project.code,
    count: ids.length,
    tcase_ids: ids.slice(0, AUDIT_IDS_MAX),
    ...extra,
  });
}
