import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { setSuspended } from '../../src/modules/tenants/tenants.service.js';
import { atLeast, type Role } from '../../src/auth/roles.js';
import { collectRoutes } from './collect-routes.js';
import { populateProject, type ProjectData } from './fixtures.js';
import { clientFor, fullPath, makeUser, matrixContext } from './matrix.js';
import {
  ROUTE_TABLE,
  OWN_AUTHENTICATION_PREFIXES,
  UNAUTHENTICATED_PREFIXES,
  type MatrixCtx,
  type MatrixUser,
  type RouteRow,
} from './route-table.js';

/**
 * The authorisation matrix: every route × every role × member / non-member × SIEM-LOG-ONLY key ×
 * suspended tenant × archived project → the status a client gets (D3, D5, D6, docs/api-decisions.md#archived-projects
 * Authentication). Routes come from the built application; their expectations from route-table.ts.
 */

type CaseKind = 'anonymous' | 'role' | 'restricted' | 'suspended' | 'archived' | 'session' | 'cross-site';
interface Case {
  label: string;
  kind: CaseKind;
  /** The caller; undefined = no credentials. */
  user?: MatrixUser;
  role?: Role;
  member?: boolean;
  /** The route's method (for the cross-site rule). */
  method?: string;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const SITE = 'http://casebook.test';

const NON_OWNER_ROLES = ['admin', 'user', 'test-runner', 'viewer'] as const;

/** What a client must get for this row and case. */
export function expectedStatus(row: RouteRow, c: Case): number {
  if (row.auth === 'public') return row.ok;
  switch (c.kind) {
    case 'anonymous':
      return 401;
    case 'suspended':
      return 403;
    case 'restricted':
      return row.restricted ? row.ok : 403;
    case 'archived':
      return row.archived ?? (row.project === 'write' ? 403 : row.ok);
    // D4: the owner signed in to the web application; a write from another site's page is refused.
    case 'session':
      return row.session ?? row.ok;
    case 'cross-site':
      return SAFE_METHODS.has(c.method ?? 'GET') ? (row.session ?? row.ok) : 403;
    case 'role': {
      const role = c.role!;
      const allowed = atLeast(role, row.auth) && (!row.project || c.member || atLeast(role, 'admin'));
      return allowed ? row.ok : 403;
    }
  }
}

describeEachDb('authorisation matrix', (t) => {
  let fx: ProjectData;
  let cases: Case[];
  let ctxFor: (actor?: MatrixUser) => MatrixCtx;
  let owner: MatrixUser;
  let sessionToken = '';
  const signIn = async () => {
    const res = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { email: owner.email, password: owner.password },
    });
    expect(res.status, res.text).toBe(200);
    sessionToken = res.body.token;
  };
  const tally = { routes: 0, cases: 0 };

  beforeAll(async () => {
    owner = { id: t.ownerId, key: t.ownerKey, email: 'owner@example.com', password: 'owner-password' };
    const members: Partial<Record<Role, MatrixUser>> = {};
    const outsiders: Partial<Record<Role, MatrixUser>> = {};
    for (const role of NON_OWNER_ROLES) {
      members[role] = await makeUser(t, t.tenantId, role);
      outsiders[role] = await makeUser(t, t.tenantId, role);
    }
    const siem = await makeUser(t, t.tenantId, 'admin', 'SIEM-LOG-ONLY matrix');
    const memberIds = NON_OWNER_ROLES.map((r) => members[r]!.id);
    const asOwner = clientFor(t, t.ownerKey);
    fx = await populateProject(asOwner, { members: memberIds });
    ctxFor = matrixContext(t, { tenantId: t.tenantId, owner, fx, memberIds, asOwner });
    cases = [
      { label: 'no key', kind: 'anonymous' },
      { label: 'owner', kind: 'role', user: owner, role: 'owner', member: true },
      ...NON_OWNER_ROLES.flatMap((role): Case[] => [
        { label: `${role} (member)`, kind: 'role', user: members[role], role, member: true },
        { label: `${role} (not a member)`, kind: 'role', user: outsiders[role], role, member: false },
      ]),
      { label: 'SIEM-LOG-ONLY admin key', kind: 'restricted', user: siem },
      { label: 'owner of a suspended tenant', kind: 'suspended', user: owner },
      { label: 'owner, project archived', kind: 'archived', user: owner },
      { label: 'owner by session cookie', kind: 'session' },
      { label: 'owner by session cookie, request from another site', kind: 'cross-site' },
    ];
    await signIn();
  }, 120_000);

  afterAll(() => {
    // The matrix's size, for the record.
    console.log(
      `[security] authorisation matrix on ${t.dbName}: ${tally.routes} routes, ${tally.cases} cases`,
    );
  });

  it('has exactly one row per route of the application (a new route without a row fails here)', () => {
    const routes = collectRoutes(t.app).filter((r) => {
      const path = r.slice(r.indexOf(' ') + 1);
      return ![...UNAUTHENTICATED_PREFIXES, ...OWN_AUTHENTICATION_PREFIXES].some(
        (prefix) => path === prefix || path.startsWith(prefix),
      );
    });
    const rows = Object.keys(ROUTE_TABLE).sort();
    expect({ routesWithoutRow: routes.filter((r) => !rows.includes(r)) }).toEqual({ routesWithoutRow: [] });
    expect({ rowsWithoutRoute: rows.filter((r) => !routes.includes(r)) }).toEqual({ rowsWithoutRoute: [] });
    // Whatever lies outside /api/ must be one of the known unauthenticated pages.
    for (const r of collectRoutes(t.app)) {
      const path = r.slice(r.indexOf(' ') + 1);
      const known = [...UNAUTHENTICATED_PREFIXES, ...OWN_AUTHENTICATION_PREFIXES];
      expect(path.startsWith('/api/') || known.some((p) => path.startsWith(p)), r).toBe(true);
    }
  });

  async function runCase(method: string, row: RouteRow, c: Case): Promise<string | undefined> {
    const ctx = ctxFor(c.user && c.kind === 'role' ? c.user : owner);
    const viaSession = c.kind === 'session' || c.kind === 'cross-site';
    const prepared = await row.prepare(ctx);
    const target = prepared.project ?? fx.project.code;
    if (c.kind === 'archived') await ctx.asOwner('POST', `/project/${target}/archive`);
    if (c.kind === 'suspended') await setSuspended(t.db, t.tenantId, true);
    let status: number;
    let text: string;
    try {
      const res = await t.request(method, fullPath(prepared.path), {
        key: c.user ? c.user.key : null,
        body: prepared.body,
        query: prepared.query,
        headers: viaSession
          ? {
              ...prepared.headers,
              cookie: `session=${sessionToken}`,
              origin: c.kind === 'session' ? SITE : 'https://evil.example.com',
            }
          : prepared.headers,
      });
      status = res.status;
      text = res.text;
    } finally {
      if (c.kind === 'suspended') await setSuspended(t.db, t.tenantId, false);
      if (c.kind === 'archived') await ctx.asOwner('POST', `/project/${target}/unarchive`);
    }
    if (status < 300 && prepared.cleanup) await prepared.cleanup();
    if (row.endsSession && status < 300) await signIn();
    const expected = expectedStatus(row, { ...c, method });
    if (status === expected) return undefined;
    return `${c.label}: expected ${expected}, got ${status} ${text.slice(0, 200)}`;
  }

  for (const [route, row] of Object.entries(ROUTE_TABLE)) {
    const method = route.slice(0, route.indexOf(' '));
    it(`${route} answers every caller as the table says`, async () => {
      const mismatches: string[] = [];
      const applicable = cases.filter(
        (c) =>
          (row.auth !== 'public' || c.kind === 'anonymous' || c.label === 'owner') &&
          (c.kind !== 'archived' || row.project !== undefined) &&
          (c.kind !== 'role' || c.member || row.project !== undefined),
      );
      for (const c of applicable) {
        const mismatch = await runCase(method, row, c);
        if (mismatch) mismatches.push(mismatch);
      }
      tally.routes += 1;
      tally.cases += applicable.length;
      expect(mismatches).toEqual([]);
    }, 60_000);
  }
});

describe('expectedStatus', () => {
  const row: RouteRow = { auth: 'test-runner', project: 'write', prepare: () => ({ path: '/' }), ok: 201 };
  it('applies role, membership, restricted key, suspension and archiving in that order of rules', () => {
    expect(expectedStatus(row, { label: '', kind: 'anonymous' })).toBe(401);
    expect(expectedStatus(row, { label: '', kind: 'role', role: 'viewer', member: true })).toBe(403);
    expect(expectedStatus(row, { label: '', kind: 'role', role: 'test-runner', member: true })).toBe(201);
    expect(expectedStatus(row, { label: '', kind: 'role', role: 'user', member: false })).toBe(403);
    expect(expectedStatus(row, { label: '', kind: 'role', role: 'admin', member: false })).toBe(201);
    expect(expectedStatus(row, { label: '', kind: 'restricted' })).toBe(403);
    expect(expectedStatus({ ...row, restricted: true }, { label: '', kind: 'restricted' })).toBe(201);
    expect(expectedStatus(row, { label: '', kind: 'suspended' })).toBe(403);
    expect(expectedStatus(row, { label: '', kind: 'archived' })).toBe(403);
    expect(expectedStatus({ ...row, project: 'read' }, { label: '', kind: 'archived' })).toBe(201);
    expect(expectedStatus(row, { label: '', kind: 'session', method: 'POST' })).toBe(201);
    expect(expectedStatus(row, { label: '', kind: 'cross-site', method: 'POST' })).toBe(403);
    expect(expectedStatus(row, { label: '', kind: 'cross-site', method: 'GET' })).toBe(201);
  });
});
