import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { addResult, createRun } from '../../../test/helpers/run-factories.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';
import { activeStatusIds, assertStatusUsable, listStatuses } from './statuses.service.js';

const URL = '/settings/preferences/status';

/** D23 defaults, in the order the API lists them. */
const DEFAULTS = [
  { id: 'open', name: 'Open', color: 'blue', isActive: true, isDefault: true },
  { id: 'passed', name: 'Passed', color: 'green', isActive: true, isDefault: true },
  { id: 'failed', name: 'Failed', color: 'red', isActive: true, isDefault: true },
  { id: 'blocked', name: 'Blocked', color: 'orange', isActive: true, isDefault: true },
  { id: 'skipped', name: 'Skipped', color: 'gray', isActive: true, isDefault: true },
  { id: 'custom1', name: 'Custom 1', color: 'yellow', isActive: false, isDefault: false },
  { id: 'custom2', name: 'Custom 2', color: 'teal', isActive: false, isDefault: false },
  { id: 'custom3', name: 'Custom 3', color: 'purple', isActive: false, isDefault: false },
  { id: 'custom4', name: 'Custom 4', color: 'pink', isActive: false, isDefault: false },
];

describeEachDb('statuses', (t) => {
  // Each test starts from the defaults: the table holds only what admins saved.
  const reset = () => t.db.deleteFrom('statuses').execute();

  describe('GET /settings/preferences/status', () => {
    it('answers all nine statuses with the D23 defaults when nothing was saved, to a viewer too', async () => {
      await reset();
      const viewer = await userWithKey(t, 'viewer');
      const res = await t.get(URL, { key: viewer.key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ statuses: DEFAULTS });
    });

    it('answers 401 without a key', async () => {
      expect((await t.get(URL, { key: null })).status).toBe(401);
    });
  });

  describe('GET /settings/preferences/status/usage', () => {
    it('counts the results recorded with each custom status, switched off or not, in every project', async () => {
      await reset();
      const on = (isActive: boolean) => [
        { id: 'custom1', name: 'Retest', color: 'yellow', isActive },
        { id: 'custom2', name: 'Known bug', color: 'teal', isActive },
      ];
      expect((await t.post(URL, { statuses: on(true) })).status).toBe(200);
      const before = (await t.get(`${URL}/usage`)).body.statuses;
      const p = await createProject(t);
      const q = await createProject(t);
      const a = await createTcase(t, p);
      const b = await createTcase(t, q);
      const run = await createRun(t, p, { tcaseIds: [a.id] });
      const other = await createRun(t, q, { tcaseIds: [b.id] });
      for (const [project, r, tcase, status] of [
        [p, run, a, 'custom1'],
        [p, run, a, 'custom1'],
        [q, other, b, 'custom1'],
        [p, run, a, 'custom2'],
        [p, run, a, 'passed'],
      ] as const)
        await addResult(t, project, r.id, tcase.id, status);
      // Switched off, its results keep it and are still counted.
      expect((await t.post(URL, { statuses: on(false) })).status).toBe(200);
      const res = await t.get(`${URL}/usage`);
      expect(res.status).toBe(200);
      const added = (id: string) =>
        res.body.statuses.find((s: { id: string }) => s.id === id).results -
        before.find((s: { id: string }) => s.id === id).results;
      expect(res.body.statuses.map((s: { id: string }) => s.id)).toEqual([
        'custom1',
        'custom2',
        'custom3',
        'custom4',
      ]);
      expect([added('custom1'), added('custom2'), added('custom3'), added('custom4')]).toEqual([3, 1, 0, 0]);
    });

    it('is for admins: 403 to a user, 401 without a key', async () => {
      const user = await userWithKey(t, 'user');
      const denied = await t.get(`${URL}/usage`, { key: user.key });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('FORBIDDEN');
      expect((await t.get(`${URL}/usage`, { key: null })).status).toBe(401);
    });
  });

  describe('POST /settings/preferences/status', () => {
    it('names, colours and activates custom statuses; only the given ones change', async () => {
      await reset();
      const res = await t.post(URL, {
        statuses: [
          { id: 'custom1', name: ' Flaky ', color: 'purple', isActive: true },
          { id: 'custom3', name: 'Retest', color: 'indigo', isActive: false },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Statuses updated' });
      const { statuses } = (await t.get(URL)).body;
      expect(statuses).toEqual([
        ...DEFAULTS.slice(0, 5),
        { id: 'custom1', name: 'Flaky', color: 'purple', isActive: true, isDefault: false },
        DEFAULTS[6],
        { id: 'custom3', name: 'Retest', color: 'indigo', isActive: false, isDefault: false },
        DEFAULTS[8],
      ]);
      // A second save updates the stored row rather than adding one.
      await t.post(URL, { statuses: [{ id: 'custom1', name: 'Flaky', color: 'teal', isActive: false }] });
      const again = (await t.get(URL)).body.statuses[5];
      expect(again).toEqual({
        id: 'custom1',
        name: 'Flaky',
        color: 'teal',
        isActive: false,
        isDefault: false,
      });
      const rows = await t.db
        .selectFrom('statuses')
        .selectAll()
        .where('tenant_id', '=', t.tenantId)
        .execute();
      expect(rows.map((r) => r.id).sort()).toEqual(['custom1', 'custom3']);
    });

    it('accepts built-ins sent back unchanged (with isDefault, as GET returns them)', async () => {
      await reset();
      const res = await t.post(URL, {
        statuses: [DEFAULTS[1], { ...DEFAULTS[5], name: 'Known bug', isActive: true }],
      });
      expect(res.status).toBe(200);
      expect((await activeStatusIds(t.db, t.tenantId)).sort()).toEqual(
        ['blocked', 'custom1', 'failed', 'open', 'passed', 'skipped'].sort(),
      );
    });

    it.each([
      [
        'a renamed built-in',
        { id: 'passed', name: 'OK', color: 'green', isActive: true },
        '/statuses/0/id',
        /built-in status passed cannot be changed/,
      ],
      [
        'a deactivated built-in',
        { id: 'open', name: 'Open', color: 'blue', isActive: false },
        '/statuses/0/id',
        /cannot be changed/,
      ],
      [
        'an unknown id',
        { id: 'custom5', name: 'x', color: 'red', isActive: true },
        '/statuses/0/id',
        /custom1, custom2/,
      ],
      [
        'a hex colour',
        { id: 'custom1', name: 'x', color: '#ff0000', isActive: true },
        '/statuses/0/color',
        /color must be one of/,
      ],
      [
        'an unknown colour',
        { id: 'custom1', name: 'x', color: 'black', isActive: true },
        '/statuses/0/color',
        /black/,
      ],
      [
        'an empty name',
        { id: 'custom1', name: '  ', color: 'red', isActive: true },
        '/statuses/0/name',
        /1-16/,
      ],
      [
        'a name over 16 characters',
        { id: 'custom1', name: 'x'.repeat(17), color: 'red', isActive: true },
        '/statuses/0/name',
        /1-16/,
      ],
    ])('answers 400 for %s and changes nothing', async (_what, entry, path, message) => {
      await reset();
      const res = await t.post(URL, {
        statuses: [entry, { id: 'custom2', name: 'Valid', color: 'red', isActive: true }],
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.details[0].path).toBe(path);
      expect(res.body.message).toMatch(message);
      expect((await t.get(URL)).body.statuses).toEqual(DEFAULTS);
    });

    it('answers 400 naming every bad entry, a duplicate id among them', async () => {
      await reset();
      const res = await t.post(URL, {
        statuses: [
          { id: 'custom2', name: 'A', color: 'red', isActive: true },
          { id: 'custom2', name: 'B', color: 'red', isActive: true },
          { id: 'custom4', name: 'C', color: 'white', isActive: true },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { path: string }) => d.path)).toEqual([
        '/statuses/1/id',
        '/statuses/2/color',
      ]);
      expect((await t.get(URL)).body.statuses).toEqual(DEFAULTS);
    });

    it.each([
      [{ statuses: [] }],
      [{}],
      [{ statuses: [{ id: 'custom1', name: 'x', color: 'red' }] }],
      [{ statuses: [{ id: 'custom1', name: 'x', color: 'red', isActive: 'yes' }] }],
      [{ statuses: [{ id: 'custom1', name: 'x', color: 'red', isActive: true, inUse: true }] }],
      [{ statuses: [{ id: 'custom1', name: 'x', color: 'red', isActive: true }], extra: true }],
    ])('answers 400 for the malformed body %j', async (body) => {
      const res = await t.post(URL, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    });

    it.each([['viewer'], ['test-runner'], ['user']] as const)(
      'answers 403 to a %s (statuses need admin, D3)',
      async (role) => {
        await reset();
        const { key } = await userWithKey(t, role);
        const res = await t.post(
          URL,
          { statuses: [{ id: 'custom1', name: 'x', color: 'red', isActive: true }] },
          { key },
        );
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('FORBIDDEN');
        expect((await t.get(URL)).body.statuses).toEqual(DEFAULTS);
      },
    );

    it('answers 200 to an admin', async () => {
      const { key } = await userWithKey(t, 'admin');
      const res = await t.post(
        URL,
        { statuses: [{ id: 'custom4', name: 'Admin', color: 'pink', isActive: true }] },
        { key },
      );
      expect(res.status).toBe(200);
    });
  });

  describe('service: assertStatusUsable and activeStatusIds (D23, used by results)', () => {
    it('accepts built-ins and active custom statuses, and throws 400 for inactive or unknown ones', async () => {
      await reset();
      await expect(assertStatusUsable(t.db, t.tenantId, 'passed')).resolves.toBeUndefined();
      await expect(assertStatusUsable(t.db, t.tenantId, 'custom1', '/items/3/status')).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'status custom1 is not active',
        details: [{ path: '/items/3/status' }],
      });
      await expect(assertStatusUsable(t.db, t.tenantId, 'done')).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ path: '/status' }],
      });
      expect(await activeStatusIds(t.db, t.tenantId)).toEqual([
        'open',
        'passed',
        'failed',
        'blocked',
        'skipped',
      ]);
      await t.post(URL, { statuses: [{ id: 'custom1', name: 'Flaky', color: 'red', isActive: true }] });
      await expect(assertStatusUsable(t.db, t.tenantId, 'custom1')).resolves.toBeUndefined();
      expect(await activeStatusIds(t.db, t.tenantId)).toContain('custom1');
    });

    it('keeps tenants apart (D1): another tenant still sees the defaults', async () => {
      await reset();
      await t.post(URL, { statuses: [{ id: 'custom2', name: 'Mine', color: 'red', isActive: true }] });
      expect(await listStatuses(t.db, 'another-tenant')).toEqual(DEFAULTS);
      await expect(assertStatusUsable(t.db, 'another-tenant', 'custom2')).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
    });
  });
});
