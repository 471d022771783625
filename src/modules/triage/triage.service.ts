import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../auth/actor.js';
import { notFound } from '../../errors.js';
import { parseJson } from '../../lib/json.js';
import { nowIso } from '../../lib/time.js';
import { recordAudit } from '../audit/audit.service.js';
import { resolveProject } from '../projects/projects.service.js';
import { comparableRunId } from '../reports/reports.service.js';
import { getRunForRead } from '../runs/runs.service.js';
import { linkResults } from '../runs/run-results.service.js';
import * as repo from './triage.repository.js';
import type {
  FailureGroupDetail,
  GroupPageQuery,
  KnownMark,
  LinkGroupBody,
  MarkKnownAnswer,
  MarkKnownBody,
  ProjectFailureGroupPage,
  ResultSuggestions,
  RunFailureGroup,
  RunFailureGroups,
  Suggestion,
} from './triage.schemas.js';

/*
 * Failure triage (docs/api-decisions.md#failure-triage): failures grouped by signature, in a run and across a
 * project's runs; defects linked before to the same signature offered as suggestions; a group linked to a defect or
 * marked known in one action. Nothing is linked automatically: every write here is a person's request.
 */

/** Runs `work` in a transaction of its own, or in the caller's when `db` is one already. */
const inTransaction = <T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> =>
  db.isTransaction ? work(db) : db.transaction().execute(work);

const RUNS_SHOWN = 200;
const CASES_SHOWN = 500;
/** Links read per suggestion request: the newest; older decisions beyond them are not offered. */
const LINKS_READ = 500;
const EVIDENCE_SHOWN = 10;

type KnownRow = Awaited<ReturnType<typeof repo.listKnown>>[number];

const toKnown = (k: KnownRow): KnownMark => ({
  ...(k.marked_by !== null && k.marked_by_name !== null
    ? { by: { id: k.marked_by, name: k.marked_by_name } }
    : {}),
  at: k.marked_at,
  ...(k.run_id !== null ? { runId: k.run_id } : {}),
  note: k.note,
});

async function knownBySignature(db: Db, tenantId: string, projectId: string, signatures: string[]) {
  const rows = await repo.listKnown(db, tenantId, projectId, signatures);
  return new Map(rows.map((k) => [k.signature, toKnown(k)]));
}

/** A run's failures grouped by signature, the largest group first; each says whether the comparable run had it. */
export async function runFailureGroups(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
): Promise<RunFailureGroups> {
  const { project, run } = await getRunForRead(db, actor, projectRef, runId);
  const rows = await repo.listRunFailures(db, actor.tenantId, run.id);
  const groups = new Map<string, RunFailureGroup>();
  for (const r of rows) {
    let g = groups.get(r.signature);
    if (!g) {
      g = { signature: r.signature, label: r.label, count: 0, cases: [], isNew: true, known: null };
      groups.set(r.signature, g);
    }
    g.count++;
    g.cases.push({
      tcaseId: r.tcase_id,
      seq: r.seq,
      title: r.title,
      status: r.status,
      resultId: r.result_id,
    });
  }
  const comparedWith = await comparableRunId(db, actor.tenantId, project.id, run.id);
  const before =
    comparedWith === null
      ? new Set<string>()
      : await repo.listRunSignatures(db, actor.tenantId, comparedWith);
  const known = await knownBySignature(db, actor.tenantId, project.id, [...groups.keys()]);
  for (const g of groups.values()) {
    g.isNew = !before.has(g.signature);
    g.known = known.get(g.signature) ?? null;
    g.cases.sort((a, b) => a.seq - b.seq);
  }
  const sorted = [...groups.values()].sort(
    (a, b) => b.count - a.count || a.label.localeCompare(b.label) || a.signature.localeCompare(b.signature),
  );
  return { runId: run.id, comparedWith, groups: sorted };
}

type GroupRow = NonNullable<Awaited<ReturnType<typeof repo.findProjectGroup>>>;

const toProjectGroup = (g: GroupRow, known: Map<string, KnownMark>) => ({
  signature: g.signature,
  label: String(g.label),
  firstSeen: String(g.first_seen),
  lastSeen: String(g.last_seen),
  runs: Number(g.runs),
  cases: Number(g.cases),
  known: known.get(g.signature) ?? null,
});

/** A page of a project's failure groups across its runs, the most recently seen first. */
export async function projectFailureGroups(
  db: Db,
  actor: Actor,
  projectRef: string,
  query: GroupPageQuery,
): Promise<ProjectFailureGroupPage> {
  const project = await resolveProject(db, actor, projectRef);
  const offset = query.offset ?? 0;
  const limit = query.limit ?? 50;
  const total = await repo.countProjectGroups(db, actor.tenantId, project.id);
  const rows = await repo.listProjectGroups(db, actor.tenantId, project.id, offset, limit);
  const known = await knownBySignature(
    db,
    actor.tenantId,
    project.id,
    rows.map((r) => r.signature),
  );
  return { total, offset, limit, data: rows.map((g) => toProjectGroup(g, known)) };
}

/** One failure group of a project: its counts, the runs it was seen in and the cases it was seen on. 404 if none. */
export async function failureGroup(
  db: Db,
  actor: Actor,
  projectRef: string,
  signature: string,
): Promise<FailureGroupDetail> {
  const project = await resolveProject(db, actor, projectRef);
  const g = await repo.findProjectGroup(db, actor.tenantId, project.id, signature);
  if (!g) throw notFound(`failure group ${signature} not found in project ${project.code}`);
  const known = await knownBySignature(db, actor.tenantId, project.id, [signature]);
  const runs = await repo.listGroupRuns(db, actor.tenantId, project.id, signature, RUNS_SHOWN);
  const cases = await repo.listGroupCases(db, actor.tenantId, project.id, signature, CASES_SHOWN);
  return {
    ...toProjectGroup(g, known),
    runList: runs.map((r) => ({
      id: r.run_id,
      title: r.title,
      createdAt: r.created_at,
      cases: Number(r.cases),
    })),
    caseList: cases.map((c) => ({
      tcaseId: c.tcase_id,
      seq: c.seq,
      title: c.title,
      runs: Number(c.runs),
      lastSeen: String(c.last_seen),
    })),
  };
}

/**
 * Defects linked before to results with the same signature as this one, each with its evidence (which runs, who
 * linked it, when): suggestions only — accepting one is a link request of its own. 404 for a result not in the project.
 */
export async function resultSuggestions(
  db: Db,
  actor: Actor,
  projectRef: string,
  resultId: number,
): Promise<ResultSuggestions> {
  const project = await resolveProject(db, actor, projectRef);
  const result = await repo.findResult(db, actor.tenantId, project.id, resultId);
  if (!result) throw notFound(`result ${resultId} not found in project ${project.code}`);
  if (result.signature === null) return { resultId, signature: null, label: null, suggestions: [] };
  const links = await repo.listSignatureLinks(
    db,
    actor.tenantId,
    project.id,
    result.signature,
    resultId,
    LINKS_READ,
  );
  const byUrl = new Map<string, Suggestion & { runIds: Set<number> }>();
  for (const l of links) {
    let s = byUrl.get(l.url);
    if (!s) {
      const issueId = (parseJson(l.meta, {}) as { id?: unknown }).id;
      s = {
        url: l.url,
        text: l.text,
        ...(l.integration_id !== null ? { integrationId: l.integration_id } : {}),
        ...(typeof issueId === 'string' && issueId !== '' ? { issueId } : {}),
        runs: 0,
        evidence: [],
        runIds: new Set(),
      };
      byUrl.set(l.url, s);
    }
    s.runIds.add(l.run_id);
    if (s.evidence.length < EVIDENCE_SHOWN)
      s.evidence.push({
        runId: l.run_id,
        runTitle: l.run_title,
        resultId: l.result_id,
        tcaseId: l.tcase_id,
        seq: l.seq,
        ...(l.user_id !== null && l.user_name !== null
          ? { linkedBy: { id: l.user_id, name: l.user_name } }
          : {}),
        linkedAt: String(l.linked_at),
      });
  }
  const suggestions = [...byUrl.values()]
    .map(({ runIds, ...s }) => ({ ...s, runs: runIds.size }))
    .sort(
      (a, b) =>
        b.runs - a.runs || (b.evidence[0]?.linkedAt ?? '').localeCompare(a.evidence[0]?.linkedAt ?? ''),
    );
  return { resultId, signature: result.signature, label: result.label, suggestions };
}

/** A run's group for a write: 404 project, run or group (no failure of the run has it now), 403 archived project. */
async function groupForWrite(db: Db, actor: Actor, projectRef: string, runId: number, signature: string) {
  await resolveProject(db, actor, projectRef, { write: true });
  const { project, run } = await getRunForRead(db, actor, projectRef, runId);
  const rows = (await repo.listRunFailures(db, actor.tenantId, run.id)).filter(
    (r) => r.signature === signature,
  );
  if (rows.length === 0) throw notFound(`failure group ${signature} not found in run ${run.id}`);
  return { project, run, rows };
}

/**
 * "Link this defect to all": the link goes on the latest result of each case of the run's group, as a person adds a
 * link (a tracker issue is commented back, D24), skipping results already linked to the URL; audited as
 * `triage.defect_linked` by the caller. 400 for a link D24 refuses, with nothing written.
 */
export async function linkDefectToGroup(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  signature: string,
  link: LinkGroupBody,
): Promise<{ signature: string; linked: number[]; skipped: number[] }> {
  const { project, run, rows } = await groupForWrite(db, actor, projectRef, runId, signature);
  const now = nowIso();
  return inTransaction(db, async (trx) => {
    const out = await linkResults(
      trx,
      actor,
      run,
      rows.map((r) => r.result_id),
      link,
      now,
    );
    await recordAudit(trx, actor, 'triage.defect_linked', {
      project_id: project.id,
      project_code: project.code,
      run_id: run.id,
      signature,
      url: link.url,
      integration_id: link.integrationId,
      results_linked: out.linked.length,
    });
    return { signature, ...out };
  });
}

/**
 * Accepting a suggestion: the defect goes on this one recorded result, as a person adds a link (a tracker issue is
 * commented back, D24); nothing happens to the run's other results. Audited as `triage.defect_linked` with the
 * result. 404 for a result not in the project; 400 for a link D24 refuses, with nothing written.
 */
export async function linkDefectToResult(
  db: Db,
  actor: Actor,
  projectRef: string,
  resultId: number,
  link: LinkGroupBody,
): Promise<{ resultId: number; linked: boolean }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const result = await repo.findResult(db, actor.tenantId, project.id, resultId);
  if (!result) throw notFound(`result ${resultId} not found in project ${project.code}`);
  return inTransaction(db, async (trx) => {
    const run = { id: result.run_id, projectId: project.id };
    const out = await linkResults(trx, actor, run, [resultId], link, nowIso());
    await recordAudit(trx, actor, 'triage.defect_linked', {
      project_id: project.id,
      project_code: project.code,
      run_id: run.id,
      result_id: resultId,
      signature: result.signature ?? undefined,
      url: link.url,
      integration_id: link.integrationId,
      results_linked: out.linked.length,
    });
    return { resultId, linked: out.linked.length === 1 };
  });
}

/**
 * "Mark all as known": the signature is marked known in the project (one mark per project and signature; marking
 * again replaces who, when, the run and the note); audited as `triage.marked_known`.
 */
export async function markGroupKnown(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  signature: string,
  body: MarkKnownBody,
): Promise<MarkKnownAnswer> {
  const { project, run, rows } = await groupForWrite(db, actor, projectRef, runId, signature);
  const now = nowIso();
  const note = (body.note ?? '').trim();
  await inTransaction(db, async (trx) => {
    await repo.upsertKnown(trx, {
      tenant_id: actor.tenantId,
      project_id: project.id,
      signature,
      label: rows[0].label,
      run_id: run.id,
      marked_by: actor.userId,
      note,
      marked_at: now,
    });
    await recordAudit(trx, actor, 'triage.marked_known', {
      project_id: project.id,
      project_code: project.code,
      run_id: run.id,
      signature,
      cases: rows.length,
    });
  });
  const [known] = await repo.listKnown(db, actor.tenantId, project.id, [signature]);
  return { signature, label: rows[0].label, known: toKnown(known) };
}

/** Takes a known mark back; 404 when the signature is not marked known in the project. Audited `triage.unmarked_known`. */
export async function unmarkKnown(
  db: Db,
  actor: Actor,
  projectRef: string,
  signature: string,
): Promise<void> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  await inTransaction(db, async (trx) => {
    if (!(await repo.removeKnown(trx, actor.tenantId, project.id, signature)))
      throw notFound(`failure group ${signature} is not marked known in project ${project.code}`);
    await recordAudit(trx, actor, 'triage.unmarked_known', {
      project_id: project.id,
      project_code: project.code,
      signature,
    });
  });
}

/**
 * After results were signed again by a newer normaliser (runs/failures backfill): a known mark follows its problem to
 * the new signature, so an upgrade does not turn a known failure into an unknown one.
 */
export async function carryKnownMarks(
  db: Db,
  moves: { tenantId: string; projectId: string; from: string; to: string }[],
): Promise<void> {
  for (const m of moves) await repo.copyKnown(db, m.tenantId, m.projectId, m.from, m.to);
}
