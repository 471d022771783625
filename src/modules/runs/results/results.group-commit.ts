import type { Db } from '../../../db/create-db.js';
import { AppError } from '../../../errors.js';
import { nowIso } from '../../../lib/time.js';
import { storeAnswers } from '../../idempotency/idempotency.service.js';
import { inTransaction, recordAlone, writeRunResults, type SingleResult } from './results.service.js';
import { getRunForResults } from '../runs.service.js';

interface PendingResult extends SingleResult {
  resolve: (id: number) => void;
  reject: (err: unknown) => void;
}

/** A group writes at most this many results in one transaction, so one commit never grows without bound. */
const MAX_GROUP = 500;

/**
 * Group commit for single results: CI pipelines post results one by one from many connections, and each
 * alone would pay a transaction, the project and run lookups, the run's lock and ~10 statements. Results
 * that arrive while a commit is under way wait for the next one and are written together: one transaction;
 * per caller, project and run the access checks once (getRunForResults); per run one lock and multi-row
 * statements, in arrival order (the last result of a case decides its status, as if they had come one after
 * another). Each caller is answered only after the commit, so nothing acknowledged is lost. A result that
 * cannot be written with the others (an unknown or archived project, a closed run, a case not in its run) is
 * left out of the group and written alone afterwards (recordAlone), so its caller gets the answer it would
 * have had on its own while the rest of the group is not held up.
 *
 * One per app (createContext builds it with the database handle); it holds only the results waiting for a commit.
 */
export class ResultGroupCommit {
  private pending: PendingResult[] = [];
  private flushing = false;

  /** `onGroup`: told each group's size as it goes to the database (the metrics' group-commit sizes). */
  constructor(
    private readonly db: Db,
    private readonly onGroup?: (size: number) => void,
  ) {}

  submit(p: SingleResult): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.pending.push({ ...p, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        // The first result of a quiet moment waits one turn of the event loop, so requests parsed in the
        // same turn share its commit; the rest gather while that commit runs.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const group = this.pending.splice(0, MAX_GROUP);
        this.onGroup?.(group.length);
        await this.writeGroup(group);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async writeGroup(group: PendingResult[]): Promise<void> {
    let alone = group;
    if (group.length > 1) {
      let ids: (number | undefined)[];
      let statementFailed = false;
      try {
        ids = await inTransaction(this.db, async (trx) => {
          statementFailed = false; // a retried attempt starts afresh
          try {
            return await writeTogether(trx, group);
          } catch (err) {
            statementFailed = true;
            throw err;
          }
        });
      } catch (err) {
        if (statementFailed) {
          // A statement failed (one caller's input the database refused, say): the transaction was rolled
          // back and nothing of it is stored, so the group is written again in two halves, in arrival
          // order, down to the one result that fails alone with its own error. One bad result among n
          // costs about 2·log2(n) transactions, and the others are stored.
          const half = Math.ceil(group.length / 2);
          await this.writeGroup(group.slice(0, half));
          await this.writeGroup(group.slice(half));
          return;
        }
        // The failure came at COMMIT (a lost connection, say): whether the group was kept is unknown, and
        // writing it again could record results twice, so every caller gets the error.
        for (const p of group) p.reject(err);
        return;
      }
      alone = [];
      group.forEach((p, i) => {
        const id = ids[i];
        if (id === undefined) alone.push(p);
        else p.resolve(id);
      });
    }
    for (const p of alone) {
      try {
        p.resolve(await recordAlone(this.db, p));
      } catch (err) {
        p.reject(err);
      }
    }
  }
}

/**
 * Writes what it can of a group in the caller's transaction and answers the result ids in group order. A result
 * it cannot write (the caller may not write to the project, the project or run is unknown, archived or closed,
 * the case is not in the run) is left out, with `undefined` for its id: it is written alone afterwards, which
 * gives its caller the answer it would have had on its own (recordAlone).
 */
async function writeTogether(trx: Db, group: SingleResult[]): Promise<(number | undefined)[]> {
  const ids: (number | undefined)[] = new Array<number | undefined>(group.length).fill(undefined);
  const keyOf = (p: SingleResult) => {
    const by = p.item.by;
    return `${by.tenantId}\u0000${by.userId}\u0000${by.role}\u0000${p.projectRef}\u0000${p.runId}`;
  };
  // The checks of getRunForResults, once per caller, project and run; each run's row is locked on the way (a
  // closed run is a 409 there), in run id order, so groups in several processes never wait in a cycle.
  const runs = new Map<string, RunRef | null>();
  for (const p of [...group].sort((x, y) => x.runId - y.runId)) {
    const key = keyOf(p);
    if (runs.has(key)) continue;
    try {
      runs.set(key, (await getRunForResults(trx, p.item.by, p.projectRef, p.runId, { lock: true })).run);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      runs.set(key, null);
    }
  }
  const byRun = new Map<string, { tenantId: string; run: RunRef; at: number[] }>();
  group.forEach((p, i) => {
    const run = runs.get(keyOf(p));
    if (!run) return;
    const tenantId = p.item.by.tenantId;
    const key = `${tenantId}\u0000${run.id}`;
    const entry = byRun.get(key);
    if (entry) entry.at.push(i);
    else byRun.set(key, { tenantId, run, at: [i] });
  });
  const now = nowIso();
  for (const { tenantId, run, at } of byRun.values()) {
    // The run was locked with the checks above; a case not in the run is left out (undefined).
    const written = await writeRunResults(
      trx,
      tenantId,
      run,
      at.map((i) => group[i].item),
      { locked: true, events: 'per-result', now },
    );
    at.forEach((i, j) => (ids[i] = written[j]));
  }
  // Idempotency-Keys of the written results, with them (a key stored first elsewhere fails the group, which is
  // then split down to that result: it alone rolls back and gets the first answer).
  await storeAnswers(
    trx,
    group.flatMap((p, i) =>
      p.claim && ids[i] !== undefined ? [{ claim: p.claim, status: 201, body: { id: ids[i] } }] : [],
    ),
  );
  return ids;
}

type RunRef = { id: number; type: string; projectId: string };
