import type { Db } from '../../db/create-db.js';
import { findOrCreateSharedStep, liveSharedStepIds } from '../shared-steps/shared-steps.service.js';
import type { RowError } from './formats/types.js';
import type { PreparedCase } from './imports.prepare.js';

/*
 * Shared steps a file names (QA Sphere's Steps JSON): `{"sharedStepId": n}` is used when n is a live shared step of
 * this project, else left out with a warning (ids of another service name nothing here); a shared block (title and
 * sub-steps) is the project's shared step of that title, created when there is none, so a second import of the
 * file creates nothing. A shared step of that title with other sub-steps is used as it is, with a warning: changing
 * it would change every case that uses it.
 */

/** Sets each case's `content.steps` from its prepared steps; `create`: write the shared steps that are missing. */
export async function placeSharedSteps(
  db: Db,
  tenantId: string,
  projectId: string,
  batch: PreparedCase[],
  create: boolean,
): Promise<{ warnings: RowError[]; errors: RowError[] }> {
  const warnings: RowError[] = [];
  const errors: RowError[] = [];
  const named = batch.flatMap((p) =>
    (p.steps ?? []).flatMap((s) => ('sharedStepId' in s ? [s.sharedStepId] : [])),
  );
  const live = await liveSharedStepIds(db, tenantId, projectId, named);
  const blocks = new Map<string, Awaited<ReturnType<typeof findOrCreateSharedStep>>>();
  for (const p of batch) {
    if (!p.steps) continue;
    const steps: PreparedCase['content']['steps'] = [];
    for (const [i, s] of p.steps.entries()) {
      const where = `step ${i + 1}`;
      if ('sharedStepId' in s) {
        if (live.has(s.sharedStepId)) steps.push(s);
        else
          warnings.push({
            row: p.row,
            field: 'Steps',
            message: `${where}: shared step ${s.sharedStepId} is not in this project: left out`,
          });
      } else if ('block' in s) {
        const key = JSON.stringify(s.block);
        if (!blocks.has(key))
          blocks.set(key, await findOrCreateSharedStep(db, tenantId, projectId, s.block, create));
        const found = blocks.get(key);
        if (found && 'errors' in found) {
          for (const e of found.errors)
            errors.push({ row: p.row, field: 'Steps', message: `${where}: shared step: ${e.message}` });
          continue;
        }
        // Not created yet (the first pass): the case will use the one the second pass creates.
        steps.push({ sharedStepId: found?.id ?? 0 });
        if (found && !found.same)
          warnings.push({
            row: p.row,
            field: 'Steps',
            message:
              `${where}: the shared step "${s.block.title.trim()}" is in this project with other sub-steps: ` +
              "it is used as it is, the file's sub-steps are left out",
          });
      } else steps.push(s);
    }
    p.content.steps = steps;
  }
  return { warnings, errors };
}
