import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';

// `GET …/shared-step/:id/tcase` and `…/shared-precondition/:id/tcase`: which cases an edit of the item changes.
describeEachDb('test cases using a shared item', (t) => {
  const kinds = [
    {
      path: 'shared-step',
      create: { title: 'Sign in', subSteps: [{ description: 'Open the login page' }] },
      use: (id: number) => ({ steps: [{ description: 'Before' }, { sharedStepId: id }] }),
      own: { steps: [{ description: 'Own step' }] },
    },
    {
      path: 'shared-precondition',
      create: { title: 'Signed in', text: '<p>The user is signed in</p>' },
      use: (id: number) => ({ precondition: { sharedPreconditionId: id } }),
      own: { precondition: { text: 'Own text' } },
    },
  ];

  describe.each(kinds)('GET /project/:p/$path/:id/tcase', ({ path, create, use, own }) => {
    it('lists the live cases whose latest version uses it, by seq, and drops changed and deleted ones', async () => {
      const p = await createProject(t);
      const id = (await t.post(`/project/${p.code}/${path}`, create)).body.id as number;
      const other = (await t.post(`/project/${p.code}/${path}`, { ...create, title: 'Other' })).body.id;
      const a = await createTcase(t, p, { title: 'Checkout', ...use(id) });
      const b = await createTcase(t, p, { title: 'Refund', ...use(id) });
      const c = await createTcase(t, p, { title: 'Elsewhere', ...use(other) });
      const d = await createTcase(t, p, { title: 'Gone', ...use(id) });
      const res = await t.get(`/project/${p.code}/${path}/${id}/tcase`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        tcases: [
          { id: a.id, seq: a.seq, title: 'Checkout', folderId: expect.any(Number) },
          { id: b.id, seq: b.seq, title: 'Refund', folderId: expect.any(Number) },
          { id: d.id, seq: d.seq, title: 'Gone', folderId: expect.any(Number) },
        ],
      });
      expect((await t.patch(`/project/${p.code}/tcase/${b.id}`, own)).status).toBe(200);
      expect((await t.del(`/project/${p.code}/tcase/${d.id}`)).status).toBe(200);
      const after = await t.get(`/project/${p.code}/${path}/${id}/tcase`);
      expect(after.body.tcases.map((x: { title: string }) => x.title)).toEqual(['Checkout']);
      const elsewhere = await t.get(`/project/${p.code}/${path}/${other}/tcase`);
      expect(elsewhere.body).toEqual({ tcases: [expect.objectContaining({ id: c.id })] });
    });

    it('answers an empty list for an unused one', async () => {
      const p = await createProject(t);
      const id = (await t.post(`/project/${p.code}/${path}`, create)).body.id;
      expect((await t.get(`/project/${p.code}/${path}/${id}/tcase`)).body).toEqual({ tcases: [] });
    });

    it("answers 404 for another project's or an unknown id, 400 for a non-numeric id, 403 to a non-member", async () => {
      const p = await createProject(t);
      const q = await createProject(t);
      const foreign = (await t.post(`/project/${q.code}/${path}`, create)).body.id;
      const notFound = await t.get(`/project/${p.code}/${path}/${foreign}/tcase`);
      expect(notFound.status).toBe(404);
      expect(notFound.body.code).toBe('NOT_FOUND');
      expect((await t.get(`/project/${p.code}/${path}/999999/tcase`)).status).toBe(404);
      expect((await t.get(`/project/${p.code}/${path}/abc/tcase`)).status).toBe(400);
      const outsider = await userWithKey(t, 'user');
      const denied = await t.get(`/project/${q.code}/${path}/${foreign}/tcase`, { key: outsider.key });
      expect(denied.status).toBe(403);
      const viewer = await userWithKey(t, 'viewer');
      const r = await createProject(t, {}, [viewer.user.id]);
      const mine = (await t.post(`/project/${r.code}/${path}`, create)).body.id;
      const read = await t.get(`/project/${r.code}/${path}/${mine}/tcase`, { key: viewer.key });
      expect(read.status).toBe(200);
    });
  });
});
