import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { atLeast } from '../../../auth/roles.js';
import { forbidden, type ErrorDetail, validationFailed } from '../../../errors.js';
import { nowIso } from '../../../lib/time.js';
import { recordAudit } from '../../audit/audit.service.js';

/*
 * Backdated history (extensions.md §7a, docs/api-decisions.md#backdated-history): a run's or a result's
 * `createdAt`, given by an admin or owner moving a history in. Its rules live here so that run creation, single
 * results and batches refuse and record it alike. Nothing here runs for a request that sends no `createdAt`.
 */

/** The earliest time a history may be dated: ISO strings before it do not sort as text (negative years). */
const EARLIEST = '1970-01-01T00:00:00.000Z';

/** 403 unless the caller is an admin or owner: only they move a history in. */
export function assertMayBackdate(actor: Actor): void {
  if (!atLeast(actor.role, 'admin')) {
    throw forbidden('only an admin or owner may set createdAt (backdated history)');
  }
}

/**
 * The stored form of a requested `createdAt` (ISO 8601 UTC with milliseconds, which sorts as text beside the
 * times the service writes), or the problem with it: not in the future, not before `notBefore` (the run's own
 * creation, for a result).
 */
export function backdatedTime(
  requested: string,
  path: string,
  now: string,
  notBefore?: { at: string; what: string },
): { at: string } | { error: ErrorDetail } {
  const ms = Date.parse(requested);
  if (Number.isNaN(ms)) return { error: { path, message: 'createdAt must be an ISO 8601 date-time' } };
  const at = new Date(ms).toISOString();
  if (at > now) {
    return { error: { path, message: `createdAt ${requested} is in the future (now is ${now})` } };
  }
  if (at < EARLIEST) return { error: { path, message: `createdAt must not be before ${EARLIEST}` } };
  if (notBefore && at < notBefore.at) {
    return {
      error: {
        path,
        message: `createdAt ${requested} is before ${notBefore.what}, created at ${notBefore.at}`,
      },
    };
  }
  return { at };
}

/**
 * Records `history.backdated` in the writing transaction (docs/api-decisions.md#backdated-history): the run,
 * whether the run itself was backdated, and how many of the results written were.
 */
export async function auditBackdated(
  trx: Db,
  actor: Actor,
  project: { id: string; code: string },
  run: { id: number; title: string },
  what: { run: boolean; results: number; earliest?: string; latest?: string },
): Promise<void> {
  await recordAudit(trx, actor, 'history.backdated', {
    project_id: project.id,
    project_code: project.code,
    run_id: run.id,
    run_title: run.title,
    run_backdated: what.run,
    results: what.results,
    earliest: what.earliest,
    latest: what.latest,
  });
}

/** A new run's `createdAt`, checked (403, 400 at `/createdAt`); undefined when the request sends none. */
export function backdatedRunTime(actor: Actor, requested: string | undefined): string | undefined {
  if (requested === undefined) return undefined;
  assertMayBackdate(actor);
  const checked = backdatedTime(requested, '/createdAt', nowIso());
  if ('error' in checked) throw validationFailed([checked.error]);
  return checked.at;
}

/** `history.backdated` for a run created backdated, in its transaction. */
export const auditBackdatedRun = (
  trx: Db,
  actor: Actor,
  project: { id: string; code: string },
  runId: number,
  title: string,
) => auditBackdated(trx, actor, project, { id: runId, title }, { run: true, results: 0 });

/**
 * Checks the `createdAt` of results to be written into `run` (403 first, when any has one) and puts the stored form
 * in each; answers the problems as details at `<path>/createdAt`. Nothing happens when no item has one.
 */
export function checkBackdatedResults(
  actor: Actor,
  run: { id: number; createdAt: string },
  items: { createdAt?: string }[],
  pathOf: (i: number) => string,
): ErrorDetail[] {
  if (!items.some((it) => it.createdAt !== undefined)) return [];
  assertMayBackdate(actor);
  const now = nowIso();
  const errors: ErrorDetail[] = [];
  items.forEach((it, i) => {
    if (it.createdAt === undefined) return;
    const notBefore = { at: run.createdAt, what: `run ${run.id}` };
    const checked = backdatedTime(it.createdAt, `${pathOf(i)}/createdAt`, now, notBefore);
    if ('error' in checked) errors.push(checked.error);
    else it.createdAt = checked.at;
  });
  return errors;
}

/** `history.backdated` for the backdated results among `items` (none: nothing), in their transaction. */
export async function auditBackdatedResults(
  trx: Db,
  actor: Actor,
  project: { id: string; code: string },
  run: { id: number; title: string },
  items: { createdAt?: string }[],
): Promise<void> {
  const times = items.flatMap((it) => it.createdAt ?? []).sort();
  if (times.length === 0) return;
  await auditBackdated(trx, actor, project, run, {
    run: false,
    results: times.length,
    earliest: times[0],
    latest: times[times.length - 1],
  });
}
