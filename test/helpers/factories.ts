import { expect } from 'vitest';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { addMember } from '../../src/modules/projects/projects.service.js';
import { createUser } from '../../src/modules/users/users.service.js';
import type { Actor } from '../../src/auth/actor.js';
import type { Role } from '../../src/auth/roles.js';
import type { TestEnv } from './test-app.js';
import { uniqueProjectCode } from './codes.js';

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`;

/** The owner as a service sees them when they call with their key (tests that call services directly). */
export const ownerActor = (t: TestEnv): Actor => ({
  tenantId: t.tenantId,
  userId: t.ownerId,
  role: 'owner',
  apiKeyId: null,
  via: 'key',
  ip: '127.0.0.1',
  userAgent: 'test',
});

/** A user of the given role with an API key of its own. */
export async function userWithKey(t: TestEnv, role: Role, options: { keyName?: string } = {}) {
  const suffix = unique();
  const user = await createUser(t.db, t.tenantId, {
    email: `${role}-${suffix}@example.com`,
    name: `${role} ${suffix}`,
    role,
  });
  const { key, id: keyId } = await createApiKey(t.db, t.tenantId, {
    userId: user.id,
    name: options.keyName ?? `key-${suffix}`,
  });
  return { user, key, keyId };
}

/** A project created through the API by the owner; `members` get access to it. */
export async function createProject(
  t: TestEnv,
  overrides: Record<string, unknown> = {},
  members: number[] = [],
): Promise<{ id: string; code: string; title: string }> {
  const n = unique();
  const code = (overrides.code as string) ?? uniqueProjectCode('P');
  const body = { code, title: `Project ${n}`, ...overrides };
  const res = await t.post('/project', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  for (const userId of members) await addMember(t.db, t.tenantId, res.body.id, userId);
  return { id: res.body.id, code, title: body.title as string };
}

/** A user of the given role with a key, who can open the project (so runs and cases may be assigned to them). */
export async function memberWithKey(t: TestEnv, role: Role, project: { id: string }) {
  const person = await userWithKey(t, role);
  await addMember(t.db, t.tenantId, project.id, person.user.id);
  return person;
}

/** The audit events of an action, oldest first; of one user's when `userId` is given. */
export async function auditRows(t: TestEnv, action: string, userId?: number) {
  let q = t.db.selectFrom('audit_events').selectAll().where('action', '=', action);
  if (userId !== undefined) q = q.where('user_id', '=', userId);
  return q.orderBy('id').execute();
}
