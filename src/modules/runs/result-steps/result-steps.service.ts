import type { Insertable } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import type { ResultStepsTable } from '../../../db/tables/execution.js';
import type { ErrorDetail } from '../../../errors.js';
import { sanitizeHtmlField } from '../../../lib/html.js';
import { listVersionSteps, type VersionStep } from '../../test-cases/test-cases.service.js';
import * as repo from './result-steps.repository.js';
import type { ResultStep, ResultStepInput } from '../results/results.schemas.js';

/*
 * Per-step results (extensions.md §8, docs/api-decisions.md#per-step-results): the outcome of each step of the case
 * version a result is recorded against. A step is named by its id in that version or by its 1-based position; the
 * version is the one the run shows when the result is written, so the steps are checked under the run's lock.
 * Nothing here runs for results without `steps`.
 */

/** One result to be written with steps: the case and version it is recorded against, and where it sits in the body. */
export interface StepsOfResult {
  tcaseId: string;
  version: number;
  steps: ResultStepInput[];
  /** The item's path in the request (`/items/3`, or `` for a single result). */
  path: string;
}

/** The rows to store for each result, in the order of `results` (result_id still to set); problems as 400 details. */
export async function resolveResultSteps(
  trx: Db,
  tenantId: string,
  runId: number,
  results: StepsOfResult[],
): Promise<{ rows: Omit<Insertable<ResultStepsTable>, 'result_id'>[][]; errors: ErrorDetail[] }> {
  const refs = new Map(results.map((r) => [`${r.tcaseId}@${r.version}`, r]));
  const versions = await listVersionSteps(
    trx,
    tenantId,
    [...refs.values()].map((r) => ({ tcaseId: r.tcaseId, version: r.version })),
  );
  const errors: ErrorDetail[] = [];
  const clean = new Map<string, string>();
  const sanitise = (html: string) => {
    let out = clean.get(html);
    if (out === undefined) clean.set(html, (out = html === '' ? '' : sanitizeHtmlField(html)));
    return out;
  };
  const rows = results.map((r) => {
    const steps = versions.get(`${r.tcaseId}@${r.version}`) ?? [];
    const out: Omit<Insertable<ResultStepsTable>, 'result_id'>[] = [];
    const missing: string[] = [];
    const taken = new Set<number>();
    r.steps.forEach((step, j) => {
      const at = `${r.path}/steps/${j}`;
      const position = positionOf(step, steps, at, errors, missing);
      if (position === undefined) return;
      if (taken.has(position)) {
        errors.push({ path: at, message: `step ${position} is given more than once` });
        return;
      }
      taken.add(position);
      out.push({
        tenant_id: tenantId,
        run_id: runId,
        position,
        step_id: steps[position - 1].id,
        status: step.status,
        comment: sanitise(step.comment ?? ''),
      });
    });
    if (missing.length > 0) {
      errors.push({
        path: `${r.path}/steps`,
        message: `steps not in version ${r.version} of test case ${r.tcaseId} (${steps.length} steps): ${missing.join(', ')}`,
      });
    }
    return out;
  });
  return { rows, errors };
}

/** The 1-based position a step input names, or undefined with the problem recorded. */
function positionOf(
  step: ResultStepInput,
  steps: VersionStep[],
  at: string,
  errors: ErrorDetail[],
  missing: string[],
): number | undefined {
  if (step.stepId === undefined && step.position === undefined) {
    errors.push({ path: at, message: 'a step is named by stepId or position' });
    return undefined;
  }
  if (step.position !== undefined && step.position > steps.length) {
    missing.push(`position ${step.position}`);
    return undefined;
  }
  if (step.stepId === undefined) return step.position;
  const at1 = steps.flatMap((s, i) => (s.id === step.stepId ? [i + 1] : []));
  if (step.position !== undefined) {
    if (at1.includes(step.position)) return step.position;
    errors.push({
      path: `${at}/stepId`,
      message: `step ${step.position} of the version is not step ${step.stepId}`,
    });
    return undefined;
  }
  if (at1.length === 0) {
    missing.push(`stepId ${step.stepId}`);
    return undefined;
  }
  if (at1.length > 1) {
    errors.push({
      path: `${at}/stepId`,
      message: `step id ${step.stepId} names steps ${at1.join(' and ')} (a standalone and a shared step): give position`,
    });
    return undefined;
  }
  return at1[0];
}

export const insertResultSteps = repo.insertResultSteps;

/** The steps recorded with each of the results, by result id; results without any are absent. */
export async function stepsOfResults(
  db: Db,
  tenantId: string,
  resultIds: number[],
): Promise<Map<number, ResultStep[]>> {
  return groupSteps(await repo.listResultSteps(db, tenantId, resultIds));
}

/** Rows of `result_steps` (by result, then position) as answered, by result id. */
export function groupSteps(rows: repo.ResultStepRow[]): Map<number, ResultStep[]> {
  const out = new Map<number, ResultStep[]>();
  for (const s of rows) {
    const list = out.get(s.result_id) ?? [];
    list.push({ stepId: s.step_id, position: s.position, status: s.status, comment: s.comment });
    out.set(s.result_id, list);
  }
  return out;
}

/** `{steps}` when a result has recorded steps, else nothing: a result without them is answered as before. */
export const withSteps = (steps: ResultStep[] | undefined): { steps?: ResultStep[] } =>
  steps === undefined ? {} : { steps };
