import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';

describeEachDb('projects', (t) => {
  describe('POST /project', () => {
    it('answers 201 with the new id and stores every field', async () => {
      const res = await t.post('/project', {
        code: 'Web1',
        title: 'Web shop',
        links: [{ url: 'https://example.com/wiki', text: 'Wiki' }],
        overviewTitle: 'About',
        overviewDescription: '<p>Hello <script>alert(1)</script><b>world</b></p>',
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['id']);
      const got = await t.get(`/project/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({
        id: res.body.id,
        code: 'Web1',
        title: 'Web shop',
        description: '<p>Hello <b>world</b></p>',
        overviewTitle: 'About',
        overviewDescription: '<p>Hello <b>world</b></p>',
        links: [{ url: 'https://example.com/wiki', text: 'Wiki' }],
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        updatedAt: expect.any(String),
        archivedAt: null,
      });
    });

    it('takes the deprecated description as the overview description', async () => {
      const res = await t.post('/project', { code: 'DESC', title: 'Described', description: '<i>old</i>' });
      expect(res.status).toBe(201);
      const got = await t.get('/project/DESC');
      expect(got.body.overviewDescription).toBe('<i>old</i>');
      expect(got.body.description).toBe('<i>old</i>');
    });

    it.each([['A'], ['ABCDEF'], ['AB-C'], ['ab c'], ['']])('answers 400 for the code %j', async (code) => {
      const res = await t.post('/project', { code, title: `Bad code ${code}` });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: '/code' }] });
      expect(res.body.message).toMatch(/2-5 alphanumeric/);
    });

    it('answers 400 for a title over 255 characters, an empty title, long links and a relative link url', async () => {
      for (const body of [
        { code: 'T1', title: 'x'.repeat(256) },
        { code: 'T1', title: '   ' },
        { code: 'T1', title: 'ok', overviewTitle: 'x'.repeat(256) },
        { code: 'T1', title: 'ok', links: [{ url: '/relative', text: 'x' }] },
        { code: 'T1', title: 'ok', links: [{ url: `https://e.com/${'x'.repeat(250)}`, text: 'x' }] },
        { code: 'T1', title: 'ok', links: [{ url: 'https://e.com', text: 'x'.repeat(256) }] },
      ]) {
        const res = await t.post('/project', body);
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
      expect((await t.get('/project/T1')).status).toBe(404);
    });

    it('accepts a title of exactly 255 characters', async () => {
      expect((await t.post('/project', { code: 'T255', title: 'y'.repeat(255) })).status).toBe(201);
    });

    it('answers 409 when the title is taken and 409 naming the code when the code is taken in any case', async () => {
      await createProject(t, { code: 'DUP', title: 'Taken title' });
      const byTitle = await t.post('/project', { code: 'DUP2', title: 'Taken title' });
      expect(byTitle.status).toBe(409);
      expect(byTitle.body).toEqual({
        code: 'CONFLICT',
        message: 'a project with the title "Taken title" exists',
        details: [{ path: '/title', message: 'a project with the title "Taken title" exists' }],
      });
      const byCode = await t.post('/project', { code: 'dup', title: 'Another title' });
      expect(byCode.status).toBe(409);
      expect(byCode.body.message).toContain('DUP');
      expect(byCode.body.details).toEqual([{ path: '/code', message: byCode.body.message }]);
    });

    it('answers 400 naming an unknown field and for a field of the wrong type, creating nothing', async () => {
      const unknown = await t.post('/project', { code: 'UNK', title: 'Unknown', colour: 'red' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details).toEqual([{ path: '/colour', message: 'unknown field "colour"' }]);
      const wrongType = await t.post('/project', { code: 'UNK', title: 5 });
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.details[0].path).toBe('/title');
      expect((await t.get('/project/UNK')).status).toBe(404);
    });

    it.each(['user', 'test-runner', 'viewer'] as const)('answers 403 to a %s', async (role) => {
      const { key } = await userWithKey(t, role);
      const res = await t.post('/project', { code: 'NOPE', title: `Not allowed ${role}` }, { key });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    });

    it('lets an admin create a project, and the admin becomes a member', async () => {
      const { key } = await userWithKey(t, 'admin');
      expect((await t.post('/project', { code: 'ADM', title: 'By admin' }, { key })).status).toBe(201);
    });
  });

  describe('GET /project/:project', () => {
    it('finds a project by code in any letter case and by id', async () => {
      const p = await createProject(t, { code: 'CaSe' });
      for (const ref of ['CASE', 'case', 'CaSe', p.id]) {
        const res = await t.get(`/project/${ref}`);
        expect(res.status, ref).toBe(200);
        expect(res.body.id).toBe(p.id);
      }
    });

    it('answers 404 with the JSON error body for an unknown project', async () => {
      const res = await t.get('/project/NOPE9');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'project "NOPE9" not found' });
    });

    it('answers 403 to a user who is not a member, and 200 once they are', async () => {
      const member = await userWithKey(t, 'user');
      const outsider = await userWithKey(t, 'user');
      const p = await createProject(t, {}, [member.user.id]);
      expect((await t.get(`/project/${p.code}`, { key: member.key })).status).toBe(200);
      const res = await t.get(`/project/${p.code}`, { key: outsider.key });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    });
  });

  describe('GET /project', () => {
    it('shows admins every project and other roles only their projects (D3)', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const admin = await userWithKey(t, 'admin');
      const mine = await createProject(t, {}, [viewer.user.id]);
      const other = await createProject(t);
      const asViewer = await t.get('/project', { key: viewer.key });
      expect(asViewer.status).toBe(200);
      expect(asViewer.body.projects.map((p: { id: string }) => p.id)).toEqual([mine.id]);
      const asAdmin = await t.get('/project', { key: admin.key });
      const ids = asAdmin.body.projects.map((p: { id: string }) => p.id);
      expect(ids).toContain(mine.id);
      expect(ids).toContain(other.id);
    });
  });
});
