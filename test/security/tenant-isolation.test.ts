import { beforeAll, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../helpers/test-app.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createTenant } from '../../src/modules/tenants/tenants.service.js';
import { createUser } from '../../src/modules/users/users.service.js';
import { populateProject, type ProjectData } from './fixtures.js';
import { clientFor, fullPath, makeUser, MATRIX_PASSWORD, matrixContext, unique } from './matrix.js';
import { ROUTE_TABLE, type MatrixUser, type Prepared } from './route-table.js';

/**
 * D1: two tenants on one deployment (multi-tenant mode, tenant by host name). Every route of the route
 * table is called with tenant B's ids, paths and bodies but tenant A's key: nothing of B may come back
 * and nothing of B may change. B's key on A's host is a 401.
 */

interface TenantSetup {
  id: string;
  host: string;
  owner: MatrixUser;
  members: MatrixUser[];
  fx: ProjectData;
}

async function setUpTenant(t: TestEnv, id: string): Promise<TenantSetup> {
  const host = `${id}.casebook.test`;
  await createTenant(t.db, { id, name: `Tenant ${id}`, host });
  const email = `owner@${id}.example.com`;
  const user = await createUser(
    t.db,
    id,
    { email, name: `Owner ${id}`, role: 'owner', password: MATRIX_PASSWORD },
    true,
  );
  const { key } = await createApiKey(t.db, id, { userId: user.id, name: 'owner key' });
  const owner = { id: user.id, key, email, password: MATRIX_PASSWORD };
  const members = [await makeUser(t, id, 'user'), await makeUser(t, id, 'viewer')];
  const fx = await populateProject(clientFor(t, key, { host }), { members: members.map((m) => m.id) });
  return { id, host, owner, members, fx };
}

/** Every row of every table that belongs to the tenant, as text: equal snapshots = nothing changed. */
async function tenantSnapshot(t: TestEnv, tenantId: string): Promise<Record<string, string>> {
  const snapshot: Record<string, string> = {};
  for (const table of await t.db.introspection.getTables()) {
    const hasTenant = table.columns.some((c) => c.name === 'tenant_id');
    if (!hasTenant && table.name !== 'tenants') continue;
    const rows = await t.db
      .selectFrom(table.name as any)
      .selectAll()
      .where(hasTenant ? 'tenant_id' : 'id', '=', tenantId)
      .execute();
    snapshot[table.name] = rows
      .map((r) => JSON.stringify(r))
      .sort()
      .join('\n');
  }
  return snapshot;
}

describeEachDb(
  'tenant isolation',
  (t) => {
    let a: TenantSetup;
    let b: TenantSetup;

    beforeAll(async () => {
      a = await setUpTenant(t, 'alpha');
      b = await setUpTenant(t, 'beta');
    }, 120_000);

    const ctxOf = (s: TenantSetup) =>
      matrixContext(t, {
        tenantId: s.id,
        owner: s.owner,
        fx: s.fx,
        memberIds: s.members.map((m) => m.id),
        asOwner: clientFor(t, s.owner.key, { host: s.host }),
      })();

    it("answers 401 to tenant B's key on tenant A's host on every authenticated route", async () => {
      const failures: string[] = [];
      for (const [route, row] of Object.entries(ROUTE_TABLE)) {
        if (row.auth === 'public') continue;
        const method = route.slice(0, route.indexOf(' '));
        const prepared = await row.prepare(ctxOf(a));
        const res = await t.request(method, fullPath(prepared.path), {
          key: b.owner.key,
          body: prepared.body,
          query: prepared.query,
          headers: { ...prepared.headers, host: a.host },
        });
        if (res.status !== 401) failures.push(`${route}: ${res.status} ${res.text.slice(0, 160)}`);
      }
      expect(failures).toEqual([]);
    }, 120_000);

    it("never shows or changes tenant B's data when tenant A's key names B's ids on every route", async () => {
      // B's requests are prepared first (they create what they consume, in B); then B is frozen.
      const prepared: [string, Prepared][] = [];
      for (const [route, row] of Object.entries(ROUTE_TABLE)) {
        if (row.auth === 'public') continue;
        prepared.push([route, await row.prepare(ctxOf(b))]);
      }
      const before = await tenantSnapshot(t, b.id);
      const markers = [
        b.fx.project.id,
        b.fx.project.title,
        b.fx.tcaseId,
        b.fx.integrationId,
        b.fx.customIntegrationId,
        b.fx.runLogId,
        b.fx.configurationId,
        b.owner.email,
        ...b.members.map((m) => m.email),
      ];
      const leaks: string[] = [];
      const statuses: Record<string, number> = {};
      for (const [route, p] of prepared) {
        const method = route.slice(0, route.indexOf(' '));
        const res = await t.request(method, fullPath(p.path), {
          key: a.owner.key,
          body: p.body,
          query: p.query,
          headers: { ...p.headers, host: a.host },
        });
        statuses[route] = res.status;
        // An error may echo what the caller sent ("integration x not found"); anything else of B is a leak.
        const sent = p.path + JSON.stringify(p.body ?? '');
        const shown = markers.filter((m) => res.text.includes(m) && !sent.includes(m));
        if (shown.length > 0) leaks.push(`${route} → ${res.status} shows ${shown.join(', ')}`);
        // A path naming one of B's projects or resources must not resolve in A.
        const namesB = p.path.includes(b.fx.project.code) || markers.some((m) => p.path.includes(m));
        if (namesB && res.status < 300) leaks.push(`${route} → ${res.status} for B's ${p.path}`);
      }
      expect(leaks).toEqual([]);
      expect(await tenantSnapshot(t, b.id)).toEqual(before);
      // The project-scoped routes all answered "not found" (never 403, which would confirm B's project exists).
      const projectScoped = Object.entries(statuses).filter(([route]) => route.includes('/project/:project'));
      expect(projectScoped.length).toBeGreaterThan(40);
      expect(projectScoped.filter(([, status]) => status !== 404)).toEqual([]);
    }, 180_000);

    it("keeps A's lists free of B: projects, users, integrations, audit events, keys", async () => {
      const asA = clientFor(t, a.owner.key, { host: a.host });
      for (const path of [
        '/project',
        '/users',
        '/integration',
        '/audit-logs',
        '/api-keys',
        '/custom-field',
      ]) {
        const res = await asA('GET', path);
        expect(res.status, path).toBe(200);
        expect(res.text).not.toContain(b.fx.project.id);
        expect(res.text).not.toContain(b.owner.email);
        expect(res.text).not.toContain(`"${b.fx.integrationId}"`);
      }
      const audit = await asA('GET', '/audit-logs', { query: { count: 1000 } });
      expect(audit.body.events.length).toBeGreaterThan(0);
      const aUsers = new Set([a.owner.id, ...a.members.map((m) => m.id)]);
      expect(audit.body.events.every((e: any) => e.user === null || aUsers.has(e.user.id))).toBe(true);
    });

    it('answers 401 on a host no tenant serves', async () => {
      const res = await t.request('GET', '/api/public/v0/project', {
        key: a.owner.key,
        headers: { host: `nobody-${unique()}.casebook.test` },
      });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });
  },
  { env: { CASEBOOK_MULTI_TENANT: 'true' } },
);
