import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { ConfigurationsTable } from '../../db/schema.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest } from '../../errors.js';
import { newOrderedId } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import { resolveProject } from '../projects/projects.service.js';
import * as repo from './configurations.repository.js';
import type { Configuration, CreateConfigurationBody } from './configurations.schemas.js';

export const toConfiguration = (row: Selectable<ConfigurationsTable>): Configuration => ({
  id: row.id,
  title: row.title,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Lists a project's configurations (test environments) in creation order. */
export async function listConfigurations(db: Db, actor: Actor, projectRef: string): Promise<Configuration[]> {
  const project = await resolveProject(db, actor, projectRef);
  return (await repo.listConfigurations(db, actor.tenantId, project.id)).map(toConfiguration);
}

/** Creates a configuration (test-runner or higher, D3); string id (docs/api-decisions.md#response-shapes), title trimmed, 1-255 characters. */
export async function createConfiguration(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreateConfigurationBody,
): Promise<{ id: string }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const title = input.title.trim();
  if (title === '' || title.length > 255) throw badRequest('title must be 1-255 characters', '/title');
  const id = newOrderedId();
  const now = nowIso();
  await repo.insertConfiguration(db, {
    id,
    tenant_id: actor.tenantId,
    project_id: project.id,
    title,
    created_at: now,
    updated_at: now,
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
