import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { ConfigurationsTable } from '../../db/schema.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import { newOrderedId } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import { resolveProject } from '../projects/projects.service.js';
import * as repo from './configurations.repository.js';
import type {
  Configuration,
  ConfigurationUsage,
  CreateConfigurationBody,
  UpdateConfigurationBody,
} from './configurations.schemas.js';

export const toConfiguration = (row: Selectable<ConfigurationsTable>): Configuration => ({
  id: row.id,
  title: row.title,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

function checkedTitle(raw: string): string {
  const title = raw.trim();
  if (title === '' || title.length > 255) throw badRequest('title must be 1-255 characters', '/title');
  return title;
}

/** Lists a project's configurations (test environments) in creation order. */
export async function listConfigurations(db: Db, actor: Actor, projectRef: string): Promise<Configuration[]> {
  const project = await resolveProject(db, actor, projectRef);
  return (await repo.listConfigurations(db, actor.tenantId, project.id)).map(toConfiguration);
}

/**
 * Creates a configuration (test-runner or higher, D3); string id (docs/api-decisions.md#response-shapes), title
 * trimmed, 1-255 characters. 409 when the project already has one titled alike, as rename: two alike could not be
 * told apart in a run's picker.
 */
export async function createConfiguration(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreateConfigurationBody,
): Promise<{ id: string }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const title = checkedTitle(input.title);
  const id = newOrderedId();
  const now = nowIso();
  await db.transaction().execute(async (trx) => {
    if (await repo.findOtherByTitle(trx, actor.tenantId, project.id, title, id))
      throw conflict(`the project already has a configuration titled "${title}"`);
    await repo.insertConfiguration(trx, {
      id,
      tenant_id: actor.tenantId,
      project_id: project.id,
      title,
      created_at: now,
      updated_at: now,
    });
  });
  return { id };
}

/**
 * The configuration `id` of the project, or `undefined` when the project has none by that id (callers
 * answer 400 for a body reference, D9). Never throws for a missing configuration.
 */
export async function getConfiguration(
  db: Db,
  tenantId: string,
  projectId: string,
  id: string,
): Promise<Configuration | undefined> {
  const row = await repo.findConfiguration(db, tenantId, projectId, id);
  return row ? toConfiguration(row) : undefined;
}

/**
 * Renames a configuration (test-runner or higher, as create). 409 when another configuration of the project
 * already has the title: two alike could not be told apart in a run's picker or a report's filter.
 */
export async function updateConfiguration(
  db: Db,
  actor: Actor,
  projectRef: string,
  id: string,
  input: UpdateConfigurationBody,
): Promise<Configuration> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const title = checkedTitle(input.title);
  return db.transaction().execute(async (trx) => {
    if (!(await repo.findConfiguration(trx, actor.tenantId, project.id, id)))
      throw notFound(`configuration ${id} not found`);
    if (await repo.findOtherByTitle(trx, actor.tenantId, project.id, title, id))
      throw conflict(`the project already has a configuration titled "${title}"`);
    await repo.updateConfigurationTitle(trx, actor.tenantId, project.id, id, title, nowIso());
    const row = await repo.findConfiguration(trx, actor.tenantId, project.id, id);
    return toConfiguration(row!);
  });
}

/**
 * Deletes a configuration (test-runner or higher). Runs that used it stay as they are, results included,
 * and show no configuration from then on (docs/api-decisions.md#configurations).
 */
export async function deleteConfiguration(
  db: Db,
  actor: Actor,
  projectRef: string,
  id: string,
): Promise<void> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  if ((await repo.deleteConfiguration(db, actor.tenantId, project.id, id)) === 0)
    throw notFound(`configuration ${id} not found`);
}

/**
 * How many runs use the configuration (open ones apart): what its deletion leaves without one. Read rights of
 * the project, as the list; 404 for an id of another project.
 */
export async function getConfigurationUsage(
  db: Db,
  actor: Actor,
  projectRef: string,
  id: string,
): Promise<ConfigurationUsage> {
  const project = await resolveProject(db, actor, projectRef);
  if (!(await repo.findConfiguration(db, actor.tenantId, project.id, id)))
    throw notFound(`configuration ${id} not found`);
  return repo.countRunsUsing(db, project.id, id);
}
