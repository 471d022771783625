import { describe, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import type { Role } from '../../auth/roles.js';

const REPO_FILTERS = { folder: 3, q: 'login', tag: [1, 2], priority: ['high'], sort: 'title', order: 'desc' };

describeEachDb('saved views', (t) => {
  /** A project and members of the given roles, each with a key. */
  async function setup(...roles: Role[]) {
    const people = await Promise.all(roles.map((r) => userWithKey(t, r)));
    const p = await createProject(
      t,
      {},
      people.map((x) => x.user.id),
    );
    return { p, people };
  }
  const views = (code: string) => `/project/${code}/view`;
  const stored = (id: number) =>
    t.db.selectFrom('saved_views').selectAll().where('id', '=', id).executeTakeFirst();
  /** How many views the project holds (the database is shared by the suite's tests). */
  const count = async (projectId: string) =>
    (await t.db.selectFrom('saved_views').select('id').where('project_id', '=', projectId).execute()).length;

  describe('POST /project/:p/view', () => {
    it('answers 201 with the view, private by default, and stores its filters', async () => {
      const { p } = await setup();
      const res = await t.post(views(p.code), {
        name: ' Login, high ',
        page: 'repository',
        filters: REPO_FILTERS,
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'Login, high',
        page: 'repository',
        filters: REPO_FILTERS,
        shared: false,
        owner: { id: t.ownerId, name: expect.any(String) },
        editable: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const row = await stored(res.body.id);
      expect(row).toMatchObject({ owner_id: t.ownerId, shared: 0, name_norm: 'login, high' });
      expect(JSON.parse(row!.filters)).toEqual(REPO_FILTERS);
    });

    it('accepts the runs page’s filters and custom-field filters on the repository page', async () => {
      const { p } = await setup();
      const runs = await t.post(views(p.code), {
        name: 'Mine',
        page: 'runs',
        filters: { milestone: '4', assignee: 7, type: 'live', q: ' nightly ', sort: 'pass-low' },
      });
      expect(runs.status, runs.text).toBe(201);
      const repo = await t.post(views(p.code), {
        name: 'Web',
        page: 'repository',
        filters: { cf_platform: ['web', 'ios'] },
      });
      expect(repo.status, repo.text).toBe(201);
      expect(repo.body.filters).toEqual({ cf_platform: ['web', 'ios'] });
    });

    it('answers 400 naming a key the page does not know, and stores nothing', async () => {
      const { p } = await setup();
      for (const [page, filters, key] of [
        ['repository', { q: 'x', colour: 'red' }, 'colour'],
        ['runs', { folder: 3 }, 'folder'],
        ['runs', { 'a/b': 'x' }, 'a~1b'],
      ] as const) {
        const res = await t.post(views(p.code), { name: 'Bad', page, filters });
        expect(res.status, res.text).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.message).toContain('has no filter');
        expect(res.body.details).toEqual([{ path: `/filters/${key}`, message: expect.any(String) }]);
      }
      expect(await count(p.id)).toBe(0);
    });

    it('answers 400 for a known key with a value its page cannot take, a blank name or an unknown page', async () => {
      const { p } = await setup();
      const bad = [
        { name: 'x', page: 'repository', filters: { folder: 0 } },
        { name: 'x', page: 'repository', filters: { priority: ['urgent'] } },
        { name: 'x', page: 'repository', filters: { tag: [] } },
        { name: 'x', page: 'repository', filters: { sort: 'colour' } },
        { name: 'x', page: 'runs', filters: { milestone: 'a b' } },
        { name: 'x', page: 'runs', filters: { q: { nested: true } } },
        { name: '   ', page: 'runs', filters: {} },
        { name: 'x', page: 'plans', filters: {} },
        { name: 'x', page: 'runs', filters: {}, owner: 1 },
      ];
      for (const body of bad) {
        const res = await t.post(views(p.code), body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
      expect((await t.post(views(p.code), bad[1])).body.details).toEqual([
        { path: '/filters/priority', message: expect.stringContaining('low, medium, high') },
      ]);
      expect(await count(p.id)).toBe(0);
    });

    it('answers 409 for a name its owner already gave a view of the same page, in any case', async () => {
      const { p, people } = await setup('user');
      const [other] = people;
      expect((await t.post(views(p.code), { name: 'Smoke', page: 'runs', filters: {} })).status).toBe(201);
      const again = await t.post(views(p.code), { name: 'smoke', page: 'runs', filters: { q: 'a' } });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('CONFLICT');
      // Another page, or another person, may use the name.
      expect((await t.post(views(p.code), { name: 'Smoke', page: 'repository', filters: {} })).status).toBe(
        201,
      );
      const theirs = await t.post(
        views(p.code),
        { name: 'Smoke', page: 'runs', filters: {} },
        { key: other!.key },
      );
      expect(theirs.status).toBe(201);
      expect(await count(p.id)).toBe(3);
    });

    it('lets a viewer save a private view and refuses a shared one with 403', async () => {
      const { p, people } = await setup('viewer');
      const { key } = people[0]!;
      const mine = await t.post(views(p.code), { name: 'Mine', page: 'runs', filters: {} }, { key });
      expect(mine.status, mine.text).toBe(201);
      const shared = await t.post(
        views(p.code),
        { name: 'Ours', page: 'runs', filters: {}, shared: true },
        { key },
      );
      expect(shared.status).toBe(403);
      expect(shared.body.message).toContain('test-runner');
      expect(await count(p.id)).toBe(1);
    });

    it('answers 403 to a non-member and 404 for an unknown project', async () => {
      const { p } = await setup();
      const outsider = await userWithKey(t, 'user');
      const body = { name: 'x', page: 'runs', filters: {} };
      expect((await t.post(views(p.code), body, { key: outsider.key })).status).toBe(403);
      expect((await t.get(views(p.code), { key: outsider.key })).status).toBe(403);
      expect((await t.post(views('NOPE9'), body)).status).toBe(404);
      expect(await count(p.id)).toBe(0);
    });
  });

  describe('who sees and changes what', () => {
    async function withViews(t: TestEnv) {
      const { p, people } = await setup('test-runner', 'viewer', 'admin');
      const [runner, viewer, admin] = people as [(typeof people)[0], (typeof people)[0], (typeof people)[0]];
      const post = (name: string, shared: boolean) =>
        t.post(views(p.code), { name, page: 'runs', filters: { q: name }, shared }, { key: runner.key });
      const priv = (await post('Private', false)).body.id as number;
      const shared = (await post('Shared', true)).body.id as number;
      return { p, runner, viewer, admin, priv, shared };
    }

    it('lists a person’s own views and the shared ones, never another person’s private view', async () => {
      const { p, runner, viewer } = await withViews(t);
      const theirs = await t.get(views(p.code), { key: runner.key });
      expect(theirs.body.views.map((v: { name: string }) => v.name)).toEqual(['Private', 'Shared']);
      const seen = await t.get(views(p.code), { key: viewer.key });
      expect(seen.status).toBe(200);
      expect(seen.body.views).toEqual([
        expect.objectContaining({
          name: 'Shared',
          shared: true,
          editable: false,
          owner: expect.objectContaining({ id: runner.user.id }),
        }),
      ]);
    });

    it('answers 404 to a viewer and to an admin who name another person’s private view, and keeps it', async () => {
      const { p, viewer, admin, priv } = await withViews(t);
      for (const key of [viewer.key, admin.key]) {
        const patch = await t.patch(`${views(p.code)}/${priv}`, { name: 'Taken' }, { key });
        expect(patch.status).toBe(404);
        expect(patch.body.code).toBe('NOT_FOUND');
        expect((await t.del(`${views(p.code)}/${priv}`, { key })).status).toBe(404);
      }
      expect(await stored(priv)).toMatchObject({ name: 'Private' });
    });

    it('answers 403 to a member who changes or deletes a shared view that is not theirs', async () => {
      const { p, viewer, shared } = await withViews(t);
      const patch = await t.patch(`${views(p.code)}/${shared}`, { name: 'Mine now' }, { key: viewer.key });
      expect(patch.status).toBe(403);
      expect((await t.del(`${views(p.code)}/${shared}`, { key: viewer.key })).status).toBe(403);
      expect(await stored(shared)).toMatchObject({ name: 'Shared', shared: 1 });
    });

    it('lets an admin rename and delete a shared view of someone else', async () => {
      const { p, admin, shared } = await withViews(t);
      const listed = await t.get(views(p.code), { key: admin.key });
      expect(listed.body.views).toEqual([expect.objectContaining({ id: shared, editable: true })]);
      const res = await t.patch(`${views(p.code)}/${shared}`, { name: 'Renamed' }, { key: admin.key });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ name: 'Renamed', shared: true, filters: { q: 'Shared' } });
      expect((await t.del(`${views(p.code)}/${shared}`, { key: admin.key })).status).toBe(204);
      expect(await stored(shared)).toBeUndefined();
    });

    it('lets the owner rename, refilter, unshare and delete their view', async () => {
      const { p, runner, viewer, shared } = await withViews(t);
      const url = `${views(p.code)}/${shared}`;
      const res = await t.patch(
        url,
        { name: 'Nightly', filters: { sort: 'oldest' }, shared: false },
        { key: runner.key },
      );
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ name: 'Nightly', filters: { sort: 'oldest' }, shared: false });
      expect(await stored(shared)).toMatchObject({ name: 'Nightly', name_norm: 'nightly', shared: 0 });
      // No longer shared: the viewer no longer sees it.
      expect((await t.get(views(p.code), { key: viewer.key })).body.views).toEqual([]);
      expect((await t.del(url, { key: runner.key })).status).toBe(204);
      expect(await stored(shared)).toBeUndefined();
    });

    it('answers 409 when a rename takes a name the owner uses on that page, and changes nothing', async () => {
      const { p, runner, shared } = await withViews(t);
      const res = await t.patch(`${views(p.code)}/${shared}`, { name: 'PRIVATE' }, { key: runner.key });
      expect(res.status).toBe(409);
      expect(await stored(shared)).toMatchObject({ name: 'Shared' });
    });

    it('answers 400 for filters the view’s page does not know, or an empty change, and changes nothing', async () => {
      const { p, runner, shared } = await withViews(t);
      const url = `${views(p.code)}/${shared}`;
      const res = await t.patch(url, { filters: { folder: 1 } }, { key: runner.key });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ path: '/filters/folder', message: expect.any(String) }]);
      expect((await t.patch(url, {}, { key: runner.key })).status).toBe(400);
      expect((await t.patch(url, { page: 'repository' }, { key: runner.key })).status).toBe(400);
      expect(JSON.parse((await stored(shared))!.filters)).toEqual({ q: 'Shared' });
    });

    it('refuses a viewer who shares their own view with 403', async () => {
      const { p, viewer } = await withViews(t);
      const mine = await t.post(
        views(p.code),
        { name: 'Mine', page: 'runs', filters: {} },
        { key: viewer.key },
      );
      const res = await t.patch(`${views(p.code)}/${mine.body.id}`, { shared: true }, { key: viewer.key });
      expect(res.status).toBe(403);
      expect(await stored(mine.body.id)).toMatchObject({ shared: 0 });
      expect(
        (await t.patch(`${views(p.code)}/${mine.body.id}`, { name: 'Still mine' }, { key: viewer.key }))
          .status,
      ).toBe(200);
    });

    it('keeps one page’s views with ?page=', async () => {
      const { p, runner } = await withViews(t);
      await t.post(views(p.code), { name: 'Cases', page: 'repository', filters: {} }, { key: runner.key });
      const repo = await t.get(views(p.code), { key: runner.key, query: { page: 'repository' } });
      expect(repo.body.views.map((v: { name: string }) => v.name)).toEqual(['Cases']);
      const all = await t.get(views(p.code), { key: runner.key });
      expect(all.body.views).toHaveLength(3);
    });

    it('answers 404 for a view of another project', async () => {
      const { runner, priv } = await withViews(t);
      const other = await createProject(t, {}, [runner.user.id]);
      expect((await t.patch(`${views(other.code)}/${priv}`, { name: 'x' }, { key: runner.key })).status).toBe(
        404,
      );
      expect((await t.del(`${views(other.code)}/${priv}`, { key: runner.key })).status).toBe(404);
    });
  });
});
