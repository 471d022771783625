import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { Readable } from 'node:stream';
import { AppError, badRequest, conflict, validationFailed, type ErrorDetail } from '../../../errors.js';
import {
  IsolatedError,
  IsolationLimit,
  requestSlot,
  runIsolated,
  type Parsers,
} from '../../../lib/isolated/run.js';
import { chunks } from '../../../lib/chunks.js';
import { XmlFileError } from '../../../lib/xml.js';
import {
  findStoredAnswer,
  IdempotencyRace,
  storeAnswers,
  type IdempotencyClaim,
} from '../../idempotency/idempotency.service.js';
import {
  bulkCreateTestCases,
  selectMatchingTcaseIds,
  TITLE_MAX,
  type TcasesChanged,
} from '../../test-cases/test-cases.service.js';
import { addRunTcases, getRunForResults } from '../runs.service.js';
import { inTransaction, writeRunResults, type ResultInput } from '../results/results.service.js';
import { MAX_BATCH_ITEMS } from '../results/results.schemas.js';
import * as runTcasesRepo from '../run-tcases/run-tcases.repository.js';
import { parseJUnitXml, type JUnitTest } from './junit.parser.js';
import { markerMatcher } from './junit.markers.js';
import * as repo from './junit.repository.js';

/** The official uploader's folder and tag for the test cases it creates (`--create-tcases`). */
export const CLI_IMPORT = 'cli-import';
/** Cases the uploader creates per bulk request; the same here, so one statement set stays bounded. */
const CREATE_PER_CALL = 1000;

export interface JUnitAnswer {
  /** Results recorded (one per named test case of the file that matched a case of the run). */
  results: number;
  /** Test case names of the file that matched no case of the run, each once, in file order. */
  unmatched: string[];
  /** Test cases created in `cli-import` (createTcases). */
  created: number;
}

/** An upload's options: `claim` is the request's Idempotency-Key, `chunkSize` at most D11's 5,000. */
export interface JUnitOptions {
  createTcases: boolean;
  /** The app's parsers: a large report is read in a worker thread under the upload budget. */
  parsers: Parsers;
  claim?: IdempotencyClaim;
  tcasesChanged: TcasesChanged;
  chunkSize?: number;
}

/** A report this small is read on the request's thread: a few milliseconds, a few MiB at most (no DOCTYPE). */
const INLINE_BYTES = 1024 * 1024;
const WORKER = new URL('./junit.worker.js', import.meta.url);

/**
 * The report's test cases. A large report is parsed in a worker thread (junit.worker.ts) with a slot of the
 * tenant's: a file past the budget is a 413 (memory) or a 400 (time), and parsing it keeps no other request waiting.
 */
async function readReport(parsers: Parsers, tenantId: string, xml: string): Promise<JUnitTest[]> {
  try {
    if (xml.length <= INLINE_BYTES) return parseJUnitXml(xml);
    const slot = await requestSlot(parsers, tenantId, 'send the report again');
    try {
      const tests: JUnitTest[] = [];
      const input = Readable.from([Buffer.from(xml)]);
      for await (const t of runIsolated<JUnitTest>({
        script: WORKER,
        task: 'junit',
        input,
        budget: parsers.budget,
      }))
        tests.push(t);
      return tests;
    } finally {
      slot.release();
    }
  } catch (err) {
    if (err instanceof XmlFileError) throw badRequest(err.message);
    if (err instanceof IsolatedError && err.errorName === 'XmlFileError') throw badRequest(err.message);
    if (err instanceof IsolationLimit)
      throw new AppError(
        err.limit === 'memory' ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_FAILED',
        `the report is refused: ${err.message}`,
      );
    throw err;
  }
}

/** The claim of one chunk of an upload: a chunk written by an earlier attempt with the same key is not written again. */
const chunkClaim = (claim: IdempotencyClaim, i: number): IdempotencyClaim => ({
  ...claim,
  route: `${claim.route} chunk ${i}`,
});

/**
 * Records a JUnit XML report's results in a run (docs/api-decisions.md#junit-upload). 404 project or run, 403
 * archived project, 409 closed run, 400 for a file that is not well-formed JUnit XML or holds a DOCTYPE. The
 * whole file is read and matched before anything is written; then the results go in chunks of at most 5,000,
 * each in one transaction (D11). With an Idempotency-Key each chunk stores its answer in its own transaction and
 * the last also the request's answer: a retry after a failure part-way writes only the chunks still missing, a
 * retry after success answers the first answer.
 */
export async function recordJUnit(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  xml: string,
  o: JUnitOptions,
): Promise<JUnitAnswer> {
  const { project, run } = await getRunForResults(db, actor, projectRef, runId);
  const tests = await readReport(o.parsers, actor.tenantId, xml);
  if (tests.length === 0) throw badRequest('the file holds no named <testcase>: there is nothing to record');
  if (o.createTcases && run.type !== 'static_struct') {
    throw badRequest(
      `createTcases adds the test cases it creates to the run, which only a static_struct run allows; run ${run.id} is ${run.type}`,
    );
  }

  // Which case of the run each test names: by marker first (the uploader's rules), by cli-import title next.
  const seqOf = markerMatcher(project.code);
  const seqOfTest = tests.map((t) => seqOf(t.name));
  const seqs = [...new Set(seqOfTest.filter((s): s is number => s !== undefined))];
  const find = runTcasesRepo.findRunTcaseStates(db, actor.tenantId, run.id, project.id);
  const inRunBySeq = new Map((await find.bySeqs(seqs)).map((r) => [r.seq, r.tcase_id]));
  const refOf: (string | undefined)[] = seqOfTest.map((s) =>
    s === undefined ? undefined : inRunBySeq.get(s),
  );
  let created = 0;
  if (o.createTcases) {
    created = await createAndAdd(db, actor, project, run.id, tests, seqOfTest, refOf, o.tcasesChanged);
  }
  const unmatched = [...new Set(tests.filter((_, i) => refOf[i] === undefined).map((t) => t.name))];

  const items: ResultInput[] = [];
  tests.forEach((t, i) => {
    const ref = refOf[i];
    if (ref !== undefined) {
      items.push({ ref, by: actor, status: t.status, comment: t.comment, timeTaken: t.timeTaken });
    }
  });
  const answer: JUnitAnswer = { results: items.length, unmatched, created };
  const parts = chunks(items, Math.min(o.chunkSize ?? MAX_BATCH_ITEMS, MAX_BATCH_ITEMS));
  if (parts.length === 0 && o.claim)
    await inTransaction(db, (trx) => storeAnswers(trx, [answerOf(o.claim!, answer)]));
  for (const [i, part] of parts.entries()) {
    const claim = o.claim && chunkClaim(o.claim, i);
    if (claim && (await findStoredAnswer(db, claim))) continue;
    try {
      await inTransaction(db, async (trx) => {
        await writeRunResults(trx, actor.tenantId, run, part, {
          events: 'per-batch',
          // Matched a moment ago; a case taken out of the run meanwhile makes this chunk fail, not shrink.
          refuse: (notInRun) => {
            if (notInRun.length > 0) {
              throw conflict(`test case "${part[notInRun[0]].ref}" left run ${run.id} during the upload`);
            }
          },
        });
        if (claim) {
          const last = i === parts.length - 1;
          await storeAnswers(trx, [
            { claim, status: 201, body: { results: part.length } },
            ...(last ? [answerOf(o.claim!, answer)] : []),
          ]);
        }
      });
    } catch (err) {
      // A concurrent request with the same key wrote this chunk first: nothing of it is written twice.
      if (!(err instanceof IdempotencyRace)) throw err;
    }
  }
  return answer;
}

const answerOf = (claim: IdempotencyClaim, answer: JUnitAnswer) => ({ claim, status: 201, body: answer });

/**
 * `createTcases`, as the uploader's `--create-tcases`: a test whose marker names a case of the project outside
 * the run brings that case into the run (a draft or a template, which no run holds, leaves the test unmatched);
 * a test with no such marker is matched by title in the root folder
 * `cli-import`, and created there (tagged `cli-import`) when no case has its title. Those cases join the run
 * (static_struct, D17). Names too long for a title refuse the whole file before anything is created.
 */
async function createAndAdd(
  db: Db,
  actor: Actor,
  project: { id: string; code: string },
  runId: number,
  tests: JUnitTest[],
  seqOfTest: (number | undefined)[],
  refOf: (string | undefined)[],
  tcasesChanged: TcasesChanged,
): Promise<number> {
  const missingSeqs = [
    ...new Set(seqOfTest.filter((s, i): s is number => s !== undefined && refOf[i] === undefined)),
  ];
  const found = await repo.findTcasesBySeq(db, actor.tenantId, project.id, missingSeqs);
  // Only runnable cases join a run (D16: no drafts, no templates); a marker naming another stays unmatched.
  const runnable = new Set(
    found.length === 0
      ? []
      : await selectMatchingTcaseIds(db, actor.tenantId, project.id, { tcaseIds: found.map((r) => r.id) }),
  );
  const idBySeq = new Map(found.filter((r) => runnable.has(r.id)).map((r) => [r.seq, r.id]));
  const unrunnable = new Set(found.filter((r) => !runnable.has(r.id)).map((r) => r.seq));
  const byTitle = tests.map((t, i) => {
    const seq = seqOfTest[i];
    if (refOf[i] !== undefined || (seq !== undefined && (idBySeq.has(seq) || unrunnable.has(seq))))
      return undefined;
    return t.name;
  });
  const titles = [...new Set(byTitle.filter((n): n is string => n !== undefined))];
  const tooLong: ErrorDetail[] = titles
    .filter((n) => n.length > TITLE_MAX)
    .map((n) => ({
      path: '/testcase/name',
      message: `"${n.slice(0, 60)}…" is longer than ${TITLE_MAX} characters`,
    }));
  if (tooLong.length > 0) {
    throw validationFailed(
      tooLong.slice(0, 50),
      `createTcases: ${tooLong.length} test names are too long for a title`,
    );
  }
  const known = await repo.findTcasesInRootFolderByTitle(db, actor.tenantId, project.id, CLI_IMPORT, titles);
  const toCreate = titles.filter((n) => !known.has(n));
  for (const part of chunks(toCreate, CREATE_PER_CALL)) {
    const { tcases } = await bulkCreateTestCases(
      db,
      actor,
      project.code,
      { folderPath: [CLI_IMPORT], tcases: part.map((title) => ({ title, tags: [CLI_IMPORT] })) },
      tcasesChanged,
    );
    part.forEach((title, i) => known.set(title, tcases[i].id));
  }
  const joining = new Set<string>();
  tests.forEach((_, i) => {
    if (refOf[i] !== undefined) return;
    const seq = seqOfTest[i];
    if (seq !== undefined && idBySeq.has(seq)) refOf[i] = idBySeq.get(seq);
    else if (byTitle[i] !== undefined) refOf[i] = known.get(byTitle[i]);
    if (refOf[i] !== undefined) joining.add(refOf[i]);
  });
  for (const part of chunks([...joining], CREATE_PER_CALL))
    await addRunTcases(db, actor, project.code, runId, part);
  return toCreate.length;
}
