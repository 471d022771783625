import type { TestEnv } from '../helpers/test-app.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createUser } from '../../src/modules/users/users.service.js';
import type { Role } from '../../src/auth/roles.js';
import type { Client, MatrixCtx, MatrixUser, Prepared } from './route-table.js';
import type { ProjectData } from './fixtures.js';
import { uniqueProjectCode } from '../helpers/codes.js';

export const MATRIX_PASSWORD = 'matrix-password-1';

let counter = 0;
/**
 * Short, unique within this test file (whose database is its own), never all digits (usable in names and
 * system names). A pure counter: time prefixes of varying length made two answers equal now and then.
 */
export const unique = () => `u${(counter++).toString(36)}`;

/** The full API path of a prepared request. */
export const fullPath = (path: string) => (path.startsWith('/api/') ? path : `/api/public/v0${path}`);

/** A request function speaking as `key` (the owner's by default), with optional extra headers (e.g. Host). */
export function clientFor(t: TestEnv, defaultKey: string, extraHeaders: Record<string, string> = {}): Client {
  return (method, path, options = {}) =>
    t.request(method, fullPath(path), {
      key: options.key ?? defaultKey,
      body: options.body,
      query: options.query,
      headers: { ...extraHeaders, ...options.headers },
    });
}

/** A user of the tenant with a password and an API key (named `keyName` when given). */
export async function makeUser(
  t: TestEnv,
  tenantId: string,
  role: Exclude<Role, 'owner'>,
  keyName?: string,
): Promise<MatrixUser> {
  const email = `${role}-${unique()}@matrix.example.com`;
  const user = await createUser(t.db, tenantId, {
    email,
    name: `${role} ${unique()}`,
    role,
    password: MATRIX_PASSWORD,
  });
  const { key } = await createApiKey(t.db, tenantId, {
    userId: user.id,
    name: keyName ?? `matrix ${unique()}`,
  });
  return { id: user.id, key, email, password: MATRIX_PASSWORD };
}

/** Builds the context `prepare` functions get, for one tenant. */
export function matrixContext(
  t: TestEnv,
  input: {
    tenantId: string;
    owner: MatrixUser;
    fx: ProjectData;
    memberIds: number[];
    asOwner: Client;
  },
): (actor?: MatrixUser) => MatrixCtx {
  const freshProject = async () => {
    const n = unique();
    const code = uniqueProjectCode('F');
    const res = await input.asOwner('POST', '/project', { body: { code, title: `Fresh ${n}` } });
    if (res.status !== 201) throw new Error(`fresh project: ${res.status} ${JSON.stringify(res.body)}`);
    for (const userId of input.memberIds)
      await input.asOwner('POST', `/project/${code}/member`, { body: { userId } });
    return { id: res.body.id as string, code, title: `Fresh ${n}` };
  };
  return (actor) => ({
    db: t.db,
    tenantId: input.tenantId,
    fx: input.fx,
    p: `/project/${input.fx.project.code}`,
    actor: actor ?? input.owner,
    owner: input.owner,
    asOwner: input.asOwner,
    unique,
    freshProject,
    newUser: (role) => makeUser(t, input.tenantId, role),
  });
}

export type { Prepared };
