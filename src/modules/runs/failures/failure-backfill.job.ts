import type { Db } from '../../../db/create-db.js';
import type { PeriodicJob } from '../../../outbox/handler.js';
import { backfillFailureSignatures, type SignatureMove } from './failures.service.js';

/**
 * Signs results stored without a failure signature (docs/api-decisions.md#failure-triage): every 5 minutes in every
 * server process, the first pass at start. A process remembers how far it has looked, so after its first pass it
 * reads only results written since (an id range): those the write path signed already cost one indexed read, and
 * those an archive import wrote as rows get signed. Kept per database handle (tests run several apps in one process).
 */
const checkedUpTo = new WeakMap<object, number>();

/**
 * The job, told what to do when a signature becomes another on signing again (the module registry hands in
 * triage's carrying of known marks, so runs know nothing of triage).
 */
export const failureBackfillJob = (
  onMoved: (db: Db, moves: SignatureMove[]) => Promise<void>,
): PeriodicJob => ({
  type: 'periodic',
  name: 'failure signature backfill',
  intervalMs: 300_000,
  async run(db, { log }) {
    const out = await backfillFailureSignatures(db, checkedUpTo.get(db) ?? 0, onMoved);
    checkedUpTo.set(db, out.checkedUpTo);
    if (out.signed > 0) log?.info({ signed: out.signed }, 'failure signatures backfilled');
  },
});
