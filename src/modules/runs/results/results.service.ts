import type { Insertable } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import type { ResultsTable, RunTcasesTable } from '../../../db/tables/execution.js';
import { isRetryableTransactionError } from '../../../db/dialect.js';
import type { Actor } from '../../../auth/actor.js';
import { conflict, notFound } from '../../../errors.js';
import { sanitizeHtmlField } from '../../../lib/html.js';
import { nowIso } from '../../../lib/time.js';
import { storeAnswers, type IdempotencyClaim } from '../../idempotency/idempotency.service.js';
import { getRunForResults, resolveRunTcase } from '../runs.service.js';
import { BUILT_IN_STATUS_IDS, bumpStatus, type StatusCounts } from '../../../lib/statuses.js';
import * as repo from './results.repository.js';
import { auditResults } from './results.audit.js';
import { validateItems, validationError, type ResultInput } from './results.input.js';
import { insertLinksWithComments } from '../tracker-comments.service.js';
import * as runTcasesRepo from '../run-tcases/run-tcases.repository.js';
import * as runsRepo from '../runs.repository.js';
import type { BatchResultItem, BatchResultsBody, CreateResultBody, ResultStatus } from './results.schemas.js';
import { insertResultSteps, resolveResultSteps } from '../result-steps/result-steps.service.js';
import { insertResultFiles } from '../result-files/result-files.service.js';
import { auditBackdatedResults, checkBackdatedResults } from '../backdating/backdating.service.js';
import { seqOf } from '../../../lib/ids.js';
import { enqueueResultEvents } from '../../webhooks/webhook-events.service.js';
import { signFailures } from '../failures/failures.service.js';

export type { ResultInput } from './results.input.js';

/**
 * D22 for result comments, cheaply: plain text skips the sanitiser (sanitizeHtmlField), and CI batches repeat
 * comments (the same stack trace for many cases), so each distinct one with markup is sanitised once.
 */
function commentSanitiser(): (html: string) => string {
  const seen = new Map<string, string>();
  return (html) => {
    let clean = seen.get(html);
    if (clean === undefined) {
      clean = sanitizeHtmlField(html);
      seen.set(html, clean);
    }
    return clean;
  };
}

/** An all-digit reference is a sequence number, possibly zero-padded (docs/api-decisions.md#wire-rules). */
const isSeqRef = (ref: string): boolean => seqOf(ref) !== undefined;

/** Runs `work` in a transaction, again when the database asks for a retry (deadlock, serialisation). */
export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (err) {
      if (attempt >= 3 || !isRetryableTransactionError(err)) throw err;
    }
  }
}

/** How writeRunResults writes: the one write of results, whichever path they came by. */
export interface WriteRunResultsOptions {
  /**
   * The caller holds the run's lock already (the group commit takes it with its access checks). Otherwise it is
   * taken here, and a run closed meanwhile is a 409.
   */
  locked?: boolean;
  /**
   * Told, once the run's cases are found, the indexes of the items whose case is not in the run (none, often);
   * it throws to refuse the whole write. Items it lets pass are left out: their ids are undefined.
   */
  refuse?: (notInRun: number[]) => void;
  /** Webhook events: one `result_created` per result (single results) or one `results_created` for all (a batch). */
  events: 'per-result' | 'per-batch';
  now?: string;
  /** Where an item sits in the request, for the problems found under the lock (its steps); `/items/<i>` by default. */
  pathOf?: (i: number) => string;
}

/**
 * Writes results into one run, in the caller's transaction, under the run's lock (D11): finds every item's
 * run test case, inserts the results and their links with multi-row statements, moves each run test case's
 * status, isAutomated, latest result and version pin, and the run's counters, by the results' deltas (D18), and
 * records the webhook events. Both write paths come here: a request's own transaction (a batch, a single result
 * alone) and the group commit of single results. Answers the ids in item order (undefined for one left out).
 */
export async function writeRunResults(
  trx: Db,
  tenantId: string,
  run: { id: number; type: string; projectId: string },
  items: ResultInput[],
  o: WriteRunResultsOptions,
): Promise<(number | undefined)[]> {
  const now = o.now ?? nowIso();
  if (!o.locked) {
    const locked = await runsRepo.lockRunForWrite(trx, tenantId, run.projectId, run.id);
    if (!locked || locked.closed_at !== null) throw conflict('run is closed');
  }
  const found = await findInRun(trx, tenantId, run, items);
  const kept: number[] = [];
  const notInRun: number[] = [];
  items.forEach((item, i) => (found.has(item.ref) ? kept : notInRun).push(i));
  o.refuse?.(notInRun);
  const ids = new Array<number | undefined>(items.length).fill(undefined);
  if (kept.length === 0) return ids;
  const keptItems = notInRun.length === 0 ? items : kept.map((i) => items[i]);
  const resolved = keptItems.map((item) => found.get(item.ref)!);
  const pathOf = o.pathOf ?? ((i: number) => `/items/${i}`);
  const written = await applyResults(trx, tenantId, run, keptItems, resolved, now, (j) => pathOf(kept[j]));
  kept.forEach((i, j) => (ids[i] = written[j]));
  await enqueueResultEvents(
    trx,
    tenantId,
    run,
    written.map((id, j) => ({ id, tcaseId: resolved[j].tcase_id, status: keptItems[j].status })),
    o.events === 'per-batch',
  );
  await auditResults(trx, run, keptItems, o.events === 'per-batch');
  return ids;
}

/**
 * The run test cases (in_run) the items name, by reference. An id or a sequence number beats a legacy id that
 * looks the same (as for a path segment); legacy ids are looked up only for the references nothing else matched.
 */
async function findInRun(
  trx: Db,
  tenantId: string,
  run: { id: number; projectId: string },
  items: ResultInput[],
): Promise<Map<string, runTcasesRepo.RunTcaseStateRow>> {
  const find = runTcasesRepo.findRunTcaseStates(trx, tenantId, run.id, run.projectId);
  const refs = [...new Set(items.map((it) => it.ref))];
  const found = new Map<string, runTcasesRepo.RunTcaseStateRow>();
  for (const row of await find.byIds(refs.filter((r) => !isSeqRef(r)))) found.set(row.tcase_id, row);
  const seqRefs = refs.filter(isSeqRef);
  if (seqRefs.length > 0) {
    const bySeq = new Map((await find.bySeqs(seqRefs.map(Number))).map((r) => [r.seq, r]));
    for (const ref of seqRefs) {
      const row = bySeq.get(Number(ref));
      if (row) found.set(ref, row);
    }
  }
  const rest = refs.filter((r) => !found.has(r));
  if (rest.length > 0) {
    for (const row of await find.byLegacyIds(rest))
      if (!found.has(row.legacy_id)) found.set(row.legacy_id, row);
  }
  return found;
}

/**
 * Inserts the results of items whose run test cases are resolved (the run's lock is held) and moves each
 * case's status, isAutomated, latest result and version pin, and the run's counters and timeSpent (D17, D18).
 */
async function applyResults(
  trx: Db,
  tenantId: string,
  run: { id: number; type: string; projectId: string },
  items: ResultInput[],
  resolved: runTcasesRepo.RunTcaseStateRow[],
  now: string,
  pathOf: (i: number) => string,
): Promise<number[]> {
  // D17/D18, applied item by item: a result records the version the run shows at that moment; in
  // static_struct and live runs a non-open status pins that version and `open` un-pins it.
  const pins = run.type !== 'static';
  const sanitise = commentSanitiser();
  const state = new Map<
    string,
    { oldStatus: string; version: number | null; latest: number; last: number }
  >();
  const resultRows: Insertable<ResultsTable>[] = items.map((item, i) => {
    const row = resolved[i]!;
    let s = state.get(row.tcase_id);
    if (!s) {
      s = { oldStatus: row.status, version: row.version, latest: row.latest_version, last: -1 };
      state.set(row.tcase_id, s);
    }
    const shown = s.version ?? s.latest;
    if (pins) s.version = item.status === 'open' ? null : shown;
    s.last = i;
    return {
      tenant_id: tenantId,
      run_id: run.id,
      tcase_id: row.tcase_id,
      tcase_version: shown,
      status: item.status,
      comment: sanitise(item.comment),
      time_taken: item.timeTaken === undefined || item.timeTaken === null ? null : Math.round(item.timeTaken),
      author_id: item.by.userId,
      api_key_id: item.by.apiKeyId,
      internal: 0,
      created_at: item.createdAt ?? now,
    };
  });
  const steps = items.some((it) => it.steps !== undefined)
    ? await resolveResultSteps(
        trx,
        tenantId,
        run.id,
        items.map((it, i) => ({
          tcaseId: resultRows[i].tcase_id,
          version: resultRows[i].tcase_version,
          steps: it.steps ?? [],
          path: pathOf(i),
        })),
      )
    : undefined;
  if (steps && steps.errors.length > 0) throw validationError(steps.errors, 'Invalid result steps');
  const resultIds = await repo.insertResults(trx, resultRows);
  await signFailures(trx, run.projectId, resultRows, resultIds); // failure triage, with the results
  if (steps) {
    await insertResultSteps(
      trx,
      steps.rows.flatMap((rows, i) => rows.map((row) => ({ ...row, result_id: resultIds[i] }))),
    );
  }
  if (items.some((it) => it.files !== undefined)) {
    await insertResultFiles(
      trx,
      tenantId,
      run.id,
      resultIds,
      items.map((it) => it.files),
    );
  }

  const linkRows = items.flatMap((item, i) =>
    (item.links ?? []).map((link) => ({
      tenant_id: tenantId,
      result_id: resultIds[i],
      run_id: run.id,
      integration_id: link.integrationId ?? null,
      url: link.url,
      text: link.text,
      meta: JSON.stringify(link.meta ?? {}),
    })),
  );
  if (linkRows.length > 0) await insertLinksWithComments(trx, tenantId, linkRows, now);

  const counts: StatusCounts = {};
  const tcaseRows: Insertable<RunTcasesTable>[] = [];
  for (const [tcaseId, s] of state) {
    const last = items[s.last];
    const newStatus = last.status;
    bumpStatus(counts, s.oldStatus, -1);
    bumpStatus(counts, newStatus, +1);
    tcaseRows.push({
      tenant_id: tenantId,
      run_id: run.id,
      tcase_id: tcaseId,
      status: newStatus,
      is_automated: last.by.apiKeyId !== null ? 1 : 0,
      // Only rows in the run were resolved; the upsert never changes in_run.
      in_run: 1,
      version: s.version,
      latest_result_id: resultIds[s.last],
      updated_at: now,
    });
  }
  await runTcasesRepo.updateRunTcaseStates(trx, tcaseRows);
  // timeSpent: every result's time counts, a later result for the same case included (it is time spent).
  let timeSpent: number | null = null;
  for (const row of resultRows) if (row.time_taken != null) timeSpent = (timeSpent ?? 0) + row.time_taken;
  await runsRepo.addToRunCounters(trx, tenantId, new Map([[run.id, { counts, timeSpent }]]), now);
  return resultIds;
}

/** Orders `/items/10/x` after `/items/9/y`, so details read in item order. */
function comparePaths(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] === pb[i]) continue;
    const na = Number(pa[i]);
    const nb = Number(pb[i]);
    if (pa[i] !== '' && pb[i] !== '' && Number.isInteger(na) && Number.isInteger(nb)) return na - nb;
    return pa[i] < pb[i] ? -1 : 1;
  }
  return pa.length - pb.length;
}

/**
 * Adds one result to a run test case named by id, seq or legacy id (docs/api-decisions.md D18): 404 for
 * an unknown project, run or test case not in the run, 403 archived project, 409 closed run, 400 for an
 * inactive status (D23) or a link to an integration not linked to the project (D24). Status rules D18.
 *
 * A result with a built-in status and no links needs no check before the write, so it goes straight to
 * the group commit, which finds the project and run itself (recordAlone gives every error's answer).
 */
export async function recordResult(
  db: Db,
  /** The app's group commit (results.group-commit.ts, AppContext): where a single result waits for the next commit. */
  group: { submit(p: SingleResult): Promise<number> },
  actor: Actor,
  projectRef: string,
  runId: number,
  tcaseRef: string,
  input: CreateResultBody,
  /** The request's Idempotency-Key: its answer is stored in the transaction that stores the result. */
  claim?: IdempotencyClaim,
): Promise<{ id: number }> {
  // D26: a missing comment is the empty string, before the item reaches any write path (group commit included).
  const item: ResultInput = {
    ...input,
    comment: input.comment ?? '',
    status: input.status as ResultStatus,
    ref: tcaseRef,
    by: actor,
  };
  // Backdated (§7a), per-step and attached (§8) results are checked and written alone, never grouped: the hot path
  // stays as it was.
  const alone = item.createdAt !== undefined || item.steps !== undefined || item.files !== undefined;
  if (
    alone ||
    (item.links ?? []).length > 0 ||
    !(BUILT_IN_STATUS_IDS as readonly string[]).includes(item.status)
  ) {
    const { project, run } = await getRunForResults(db, actor, projectRef, runId);
    const errors = [
      ...checkBackdatedResults(actor, run, [item], () => ''),
      ...(await validateItems(db, actor.tenantId, project.id, [item], () => '')),
    ];
    if (errors.length > 0) {
      // A test case that is not in the run is a 404, before anything wrong in the body.
      if (!(await resolveRunTcase(db, actor.tenantId, run, tcaseRef))) throw notFoundInRun(tcaseRef, run.id);
      throw validationError(errors, 'Invalid result');
    }
  }
  const single: SingleResult = { projectRef, runId, item, claim };
  // Inside a transaction (tests) there is nothing to group with: the result is written there, directly.
  return { id: db.isTransaction || alone ? await recordAlone(db, single) : await group.submit(single) };
}

const notFoundInRun = (tcaseRef: string, runId: number) =>
  notFound(`test case "${tcaseRef}" not found in run ${runId}`);

/** One single result in its own transaction, with every check and its answer (404, 403, 409). */
export async function recordAlone(db: Db, p: SingleResult): Promise<number> {
  const { project, run } = await getRunForResults(db, p.item.by, p.projectRef, p.runId);
  return inTransaction(db, async (trx) => {
    const [id] = await writeRunResults(trx, p.item.by.tenantId, run, [p.item], {
      events: 'per-result',
      pathOf: () => '',
      // A single result's case that is not in the run is a 404 (a batch names the item in a 400).
      refuse: (notInRun) => {
        if (notInRun.length > 0) throw notFoundInRun(p.item.ref, run.id);
      },
    });
    await auditBackdatedResults(trx, p.item.by, project, run, [p.item]);
    if (p.claim) await storeAnswers(trx, [{ claim: p.claim, status: 201, body: { id } }]);
    return id!;
  });
}

/**
 * Adds several results in one transaction (D11: 1–5,000 items, all or none). The whole batch is validated
 * first; a problem is a 400 whose details name the item (`/items/i/...`), including a test case that is
 * not in the run. A test case may appear several times: each is a result, the last decides its status.
 */
export async function recordResultBatch(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  input: BatchResultsBody,
  /** The request's Idempotency-Key: its answer is stored in the batch's transaction. */
  claim?: IdempotencyClaim,
): Promise<{ ids: number[] }> {
  const { project, run } = await getRunForResults(db, actor, projectRef, runId);
  const items: ResultInput[] = input.items.map((it: BatchResultItem) => ({
    ref: it.tcaseId,
    by: actor,
    status: it.status as ResultStatus,
    comment: it.comment ?? '', // D26
    timeTaken: it.timeTaken,
    links: it.links,
    steps: it.steps,
    files: it.files,
    createdAt: it.createdAt,
  }));
  const pathOf = (i: number) => `/items/${i}`;
  const invalid = [
    ...checkBackdatedResults(actor, run, items, pathOf),
    ...(await validateItems(db, actor.tenantId, project.id, items, pathOf)),
  ];
  return inTransaction(db, async (trx) => {
    const ids = await writeRunResults(trx, actor.tenantId, run, items, {
      events: 'per-batch',
      // The problems found before the lock and the cases not in the run, in one 400 in item order.
      refuse: (notInRun) => {
        const errors = [
          ...invalid,
          ...notInRun.map((i) => ({
            path: `${pathOf(i)}/tcaseId`,
            message: `test case "${items[i].ref}" is not in run ${run.id}`,
          })),
        ];
        if (errors.length === 0) return;
        errors.sort((a, b) => comparePaths(a.path, b.path));
        throw validationError(errors, 'Invalid result batch');
      },
    });
    await auditBackdatedResults(trx, actor, project, run, items);
    if (claim) await storeAnswers(trx, [{ claim, status: 201, body: { ids } }]);
    return { ids: ids as number[] };
  });
}

// ---- what the group commit of single results (results.group-commit.ts) hands in ----

/** A single result as submitted: its project and run are found inside the commit. */
export interface SingleResult {
  projectRef: string;
  runId: number;
  item: ResultInput;
  /** Its Idempotency-Key, when the request had one: the answer is stored in the same transaction. */
  claim?: IdempotencyClaim;
}
