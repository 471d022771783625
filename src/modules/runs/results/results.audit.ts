import type { Db } from '../../../db/create-db.js';
import { recordAudits, type AuditContext } from '../../audit/audit.service.js';

/**
 * `results.recorded`, counted per request rather than one row per result (docs/api-decisions.md#audit-events): a
 * batch is one request; each single result is its own, also when the group commit writes several at once.
 */
export async function auditResults(
  trx: Db,
  run: { id: number; projectId: string },
  items: { status: string; by: AuditContext }[],
  batch: boolean,
): Promise<void> {
  const event = (request: typeof items) => {
    const statuses: Record<string, number> = {};
    for (const item of request) statuses[item.status] = (statuses[item.status] ?? 0) + 1;
    return {
      ctx: request[0].by,
      action: 'results.recorded' as const,
      meta: { project_id: run.projectId, run_id: run.id, count: request.length, statuses },
    };
  };
  await recordAudits(trx, batch ? [event(items)] : items.map((item) => event([item])));
}
