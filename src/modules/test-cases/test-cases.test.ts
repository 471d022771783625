import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { createFolder, createTcase, getTcase, uploadFile } from '../../../test/helpers/tcase-factories.js';

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

describeEachDb('test cases', (t) => {
  const sharedStep = async (code: string, title = `Shared ${Math.random()}`) => {
    const res = await t.post(`/project/${code}/shared-step`, {
      title,
      subSteps: [{ description: 'open the app', expected: 'it opens' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  };
  const sharedPrecondition = async (code: string, text = '<p>logged in</p>') => {
    const res = await t.post(`/project/${code}/shared-precondition`, { title: `Pre ${Math.random()}`, text });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  };

  describe('POST /project/:p/tcase', () => {
    it('answers 201 {id, seq} and GET shows every field of the test-case shape', async () => {
      const p = await createProject(t);
      const folderId = await createFolder(t, p, ['Checkout']);
      const fileId = await uploadFile(t, 'shot.png', 'png-bytes', 'image/png');
      const res = await t.post(`/project/${p.code}/tcase`, {
        title: '  Pay with card  ',
        type: 'standalone',
        folderId,
        priority: 'high',
        precondition: { text: '<p>cart <script>x()</script>full</p>' },
        steps: [{ description: '<b>enter</b> card', expected: 'accepted' }, { description: 'confirm' }],
        tags: ['payments', 'smoke', 'payments'],
        requirements: [{ text: 'REQ-7', url: 'https://example.com/req/7' }],
        links: [{ text: 'Spec', url: 'https://example.com/spec' }],
        files: [fileId],
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['id', 'seq']);
      expect(res.body.id).toMatch(/^[a-z][a-z0-9]+$/);
      expect(res.body.id).not.toMatch(/^\d+$/);
      expect(res.body.seq).toBe(1);

      const got = await getTcase(t, p, res.body.id);
      expect(got).toEqual({
        id: res.body.id,
        legacyId: '',
        version: 1,
        type: 'standalone',
        title: 'Pay with card',
        seq: 1,
        projectId: p.id,
        folderId,
        pos: 0,
        priority: 'high',
        comment: '<p>cart full</p>',
        files: [
          {
            id: fileId,
            fileName: 'shot.png',
            mimeType: 'image/png',
            size: 9,
            url: expect.stringMatching(new RegExp(`^https?://.+/${fileId}$`)),
          },
        ],
        links: [{ text: 'Spec', url: 'https://example.com/spec' }],
        authorId: t.ownerId,
        isDraft: false,
        isLatestVersion: true,
        isEmpty: false,
        createdAt: ISO,
        updatedAt: ISO,
        precondition: {
          projectId: p.id,
          id: expect.any(Number),
          version: 1,
          isLatest: true,
          type: 'standalone',
          text: '<p>cart full</p>',
          createdAt: ISO,
          updatedAt: ISO,
        },
        steps: [
          {
            id: expect.any(Number),
            version: 1,
            isLatest: true,
            type: 'standalone',
            description: '<b>enter</b> card',
            expected: 'accepted',
          },
          {
            id: expect.any(Number),
            version: 1,
            isLatest: true,
            type: 'standalone',
            description: 'confirm',
            expected: '',
          },
        ],
        tags: [
          { id: expect.any(Number), title: 'payments' },
          { id: expect.any(Number), title: 'smoke' },
        ],
        requirements: [{ id: expect.any(String), text: 'REQ-7', url: 'https://example.com/req/7' }],
        customFields: {},
      });
      expect(got.steps[0].id).not.toBe(got.steps[1].id);
    });

    it('creates a minimal case with an empty precondition, no steps and isEmpty true', async () => {
      const p = await createProject(t);
      const c = await createTcase(t, p, { title: 'Bare' });
      const got = await getTcase(t, p, c.id);
      expect(got).toMatchObject({
        comment: '',
        isEmpty: true,
        steps: [],
        tags: [],
        requirements: [],
        links: [],
        files: [],
        customFields: {},
        precondition: { type: 'standalone', text: '', version: 1, isLatest: true },
      });
    });

    it('takes the deprecated comment as the precondition text', async () => {
      const p = await createProject(t);
      const c = await createTcase(t, p, { comment: '<i>old style</i>' });
      const got = await getTcase(t, p, c.id);
      expect(got.comment).toBe('<i>old style</i>');
      expect(got.precondition.text).toBe('<i>old style</i>');
      expect(got.isEmpty).toBe(false);
    });

    it('references shared steps and a shared precondition, which show with their sub-steps and title', async () => {
      const p = await createProject(t);
      const stepId = await sharedStep(p.code, 'Open app');
      const preId = await sharedPrecondition(p.code, '<p>signed in</p>');
      const c = await createTcase(t, p, {
        precondition: { sharedPreconditionId: preId },
        steps: [{ sharedStepId: stepId }, { description: 'then pay' }],
      });
      const got = await getTcase(t, p, c.id);
      expect(got.comment).toBe('<p>signed in</p>');
      expect(got.precondition).toMatchObject({
        id: preId,
        type: 'shared',
        text: '<p>signed in</p>',
        version: 1,
      });
      expect(got.precondition.title).toEqual(expect.any(String));
      expect(got.steps).toEqual([
        {
          id: stepId,
          version: 1,
          isLatest: true,
          type: 'shared',
          title: 'Open app',
          subSteps: [
            {
              id: expect.any(Number),
              type: 'shared_sub_step',
              version: 1,
              isLatest: true,
              description: 'open the app',
              expected: 'it opens',
            },
          ],
        },
        expect.objectContaining({ type: 'standalone', description: 'then pay' }),
      ]);
    });

    it('numbers cases per project from 1', async () => {
      const p1 = await createProject(t);
      const p2 = await createProject(t);
      expect((await createTcase(t, p1)).seq).toBe(1);
      expect((await createTcase(t, p1)).seq).toBe(2);
      expect((await createTcase(t, p2)).seq).toBe(1);
    });

    it('gives 20 concurrent creates in one project the seqs 1-20, each once', async () => {
      const p = await createProject(t);
      const folderId = await createFolder(t, p, ['Concurrent']);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          t.post(`/project/${p.code}/tcase`, {
            title: `C${i}`,
            type: 'standalone',
            folderId,
            priority: 'low',
          }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
      expect(results.map((r) => r.body.seq).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      const list = await t.get(`/project/${p.code}/tcase`, {
        query: { folders: folderId, sortField: 'pos' },
      });
      expect(list.body.data.map((c: any) => c.pos)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });

    it('appends to the folder by default and answers 409 naming the case when the given pos is taken', async () => {
      const p = await createProject(t);
      const folderId = await createFolder(t, p, ['Positions']);
      const a = await createTcase(t, p, { folderId });
      const b = await createTcase(t, p, { folderId, pos: 5 });
      const c = await createTcase(t, p, { folderId });
      expect((await getTcase(t, p, a.id)).pos).toBe(0);
      expect((await getTcase(t, p, b.id)).pos).toBe(5);
      expect((await getTcase(t, p, c.id)).pos).toBe(6);
      const res = await t.post(`/project/${p.code}/tcase`, {
        title: 'Clash',
        type: 'standalone',
        folderId,
        priority: 'low',
        pos: 5,
      });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        code: 'CONFLICT',
        message: `position 5 in folder ${folderId} is taken by test case ${p.code}-002`,
      });
      const count = await t.get(`/project/${p.code}/tcase/count`);
      expect(count.body).toEqual({ count: 3 });
    });

    it('answers 409 for a requirement listed twice, creating nothing', async () => {
      const p = await createProject(t);
      const folderId = await createFolder(t, p, ['Reqs']);
      const res = await t.post(`/project/${p.code}/tcase`, {
        title: 'Dup req',
        type: 'standalone',
        folderId,
        priority: 'low',
        requirements: [
          { text: 'REQ-1', url: 'https://example.com/1' },
          { text: ' REQ-1 ', url: 'https://example.com/1' },
        ],
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('CONFLICT');
      expect(res.body.message).toContain('REQ-1');
      expect((await t.get(`/project/${p.code}/tcase/count`)).body.count).toBe(0);
      expect((await t.get(`/project/${p.code}/requirement`)).body.requirements).toEqual([]);
    });

    it('answers 404 for an unknown folder and for an unknown project', async () => {
      const p = await createProject(t);
      const res = await t.post(`/project/${p.code}/tcase`, {
        title: 'x',
        type: 'standalone',
        folderId: 999999,
        priority: 'low',
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'folder 999999 not found' });
      const noProject = await t.post('/project/NOPE7/tcase', {
        title: 'x',
        type: 'standalone',
        folderId: 1,
        priority: 'low',
      });
      expect(noProject.status).toBe(404);
    });

    it('answers 400 for each bad body, naming the field, and creates nothing', async () => {
      const p = await createProject(t);
      const folderId = await createFolder(t, p, ['Bad']);
      const base = { title: 'ok', type: 'standalone', folderId, priority: 'low' };
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ ...base, colour: 'red' }, '/colour', /unknown field "colour"/],
        [{ ...base, title: '' }, '/title', /title/],
        [{ ...base, title: '   ' }, '/title', /not blank/],
        [{ ...base, title: 'x'.repeat(512) }, '/title', /title/],
        [{ ...base, title: 5 }, '/title', /title/],
        [{ ...base, type: 'filled' }, '/type', /type/],
        [{ ...base, priority: 'urgent' }, '/priority', /priority/],
        [{ ...base, folderId: '1' }, '/folderId', /folderId/],
        [{ ...base, precondition: { text: 'a', sharedPreconditionId: 1 } }, '/precondition', /exactly one/],
        [{ ...base, precondition: {} }, '/precondition', /exactly one/],
        [{ ...base, steps: [{ sharedStepId: 1, description: 'x' }] }, '/steps/0', /not both/],
        [{ ...base, steps: [{}] }, '/steps/0', /needs a description/],
        [{ ...base, steps: [{ sharedStepId: 424242 }] }, '/steps', /shared step 424242/],
        [
          { ...base, precondition: { sharedPreconditionId: 424242 } },
          '/precondition/sharedPreconditionId',
          /424242/,
        ],
        [{ ...base, links: [{ text: 'x', url: 'not a url' }] }, '/links/0/url', /absolute http/],
        [{ ...base, links: [{ text: 'x', url: 'javascript:alert(1)' }] }, '/links/0/url', /absolute http/],
        [{ ...base, requirements: [{ text: 'R', url: 'ftp://x' }] }, '/requirements/0/url', /url/],
        [{ ...base, tags: ['x'.repeat(256)] }, '/tags/0', /tags/],
        [{ ...base, files: ['nosuchfile'] }, '/files', /nosuchfile/],
        [
          { ...base, customFields: { nosuch: { value: 'x' } } },
          '/customFields/nosuch',
          /unknown custom field/,
        ],
        [{ ...base, parameterValues: [{ values: {} }] }, '/parameterValues', /templates only/],
        [{ ...base, filledTCaseTitleSuffixParams: ['a'] }, '/filledTCaseTitleSuffixParams', /templates only/],
        [{ ...base, pos: -1 }, '/pos', /pos/],
      ];
      for (const [body, path, message] of cases) {
        const res = await t.post(`/project/${p.code}/tcase`, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.message, JSON.stringify(body)).toMatch(message);
        expect(
          res.body.details?.map((d: any) => d.path),
          JSON.stringify(res.body),
        ).toContain(path);
      }
      expect((await t.get(`/project/${p.code}/tcase/count`)).body.count).toBe(0);
      expect((await t.get(`/project/${p.code}/tag`)).body.tags).toEqual([]);
    });

    it('answers 400 for a deleted shared step', async () => {
      const p = await createProject(t);
      const stepId = await sharedStep(p.code);
      expect((await t.del(`/project/${p.code}/shared-step/${stepId}`)).status).toBe(200);
      const folderId = await createFolder(t, p, ['X']);
      const res = await t.post(`/project/${p.code}/tcase`, {
        title: 'x',
        type: 'standalone',
        folderId,
        priority: 'low',
        steps: [{ sharedStepId: stepId }],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('deleted');
    });

    it('answers 403 to a viewer, to a non-member and for an archived project; 201 to a test-runner member', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const runner = await userWithKey(t, 'test-runner');
      const outsider = await userWithKey(t, 'user');
      const p = await createProject(t, {}, [viewer.user.id, runner.user.id]);
      const folderId = await createFolder(t, p, ['Roles']);
      const body = { title: 'x', type: 'standalone', folderId, priority: 'low' };
      const asViewer = await t.post(`/project/${p.code}/tcase`, body, { key: viewer.key });
      expect(asViewer.status).toBe(403);
      expect(asViewer.body.code).toBe('FORBIDDEN');
      expect((await t.post(`/project/${p.code}/tcase`, body, { key: outsider.key })).status).toBe(403);
      expect((await t.post(`/project/${p.code}/tcase`, body, { key: runner.key })).status).toBe(201);
      expect((await t.get(`/project/${p.code}/tcase/1`, { key: viewer.key })).status).toBe(200);
      expect((await t.patch(`/project/${p.code}/tcase/1`, { title: 'v' }, { key: viewer.key })).status).toBe(
        403,
      );
      expect((await t.del(`/project/${p.code}/tcase/1`, { key: viewer.key })).status).toBe(403);
      expect((await t.patch(`/project/${p.code}/tcase/1`, { title: 'r' }, { key: runner.key })).status).toBe(
        200,
      );
      expect((await t.get(`/project/${p.code}/tcase/1`, { key: outsider.key })).status).toBe(403);
      expect((await t.post(`/project/${p.code}/archive`)).status).toBe(200);
      const archived = await t.post(`/project/${p.code}/tcase`, body);
      expect(archived.status).toBe(403);
      expect(archived.body.message).toContain('archived');
      expect((await t.patch(`/project/${p.code}/tcase/1`, { title: 'y' })).status).toBe(403);
      expect((await t.del(`/project/${p.code}/tcase/1`)).status).toBe(403);
      expect((await t.get(`/project/${p.code}/tcase/1`)).status).toBe(200);
    });

    it('answers 401 without a key', async () => {
      const res = await t.post('/project/ANY/tcase', {}, { key: null });
      expect(res.status).toBe(401);
    });
  });

  describe('custom fields on test cases', () => {
    it('validates and stores values, applies defaults, and PATCH changes only the given keys', async () => {
      const p = await createProject(t);
      const mk = async (body: Record<string, unknown>) => {
        const res = await t.post('/custom-field', body);
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      };
      await mk({ type: 'text', systemName: 'tc_env', name: 'Env' });
      await mk({
        type: 'dropdown',
        systemName: 'tc_level',
        name: 'Level',
        options: [{ value: 'unit' }, { value: 'e2e' }],
        defaultValue: 'unit',
      });
      const c = await createTcase(t, p, { customFields: { tc_env: { value: 'staging' } } });
      expect((await getTcase(t, p, c.id)).customFields).toEqual({
        tc_env: { value: 'staging', isDefault: false },
        tc_level: { value: 'unit', isDefault: true },
      });
      const bad = await t.patch(`/project/${p.code}/tcase/${c.id}`, {
        customFields: { tc_level: { value: 'manual' } },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.details[0].path).toBe('/customFields/tc_level');
      expect(bad.body.message).toContain('tc_level');

      expect(
        (await t.patch(`/project/${p.code}/tcase/${c.id}`, { customFields: { tc_level: { value: 'e2e' } } }))
          .status,
      ).toBe(200);
      const got = await getTcase(t, p, c.id);
      expect(got.version).toBe(2);
      expect(got.customFields).toEqual({
        tc_env: { value: 'staging', isDefault: false },
        tc_level: { value: 'e2e', isDefault: false },
      });
    });

    it('stores a long rich-text value (it is just not filterable)', async () => {
      const p = await createProject(t);
      expect(
        (await t.post('/custom-field', { type: 'richtext', systemName: 'tc_notes', name: 'Notes' })).status,
      ).toBe(201);
      const long = `<p>${'ü'.repeat(5000)}</p>`;
      const c = await createTcase(t, p, { customFields: { tc_notes: { value: long } } });
      expect((await getTcase(t, p, c.id)).customFields.tc_notes).toEqual({ value: long, isDefault: false });
      const short = await createTcase(t, p, { customFields: { tc_notes: { value: '<p>short</p>' } } });
      const found = await t.get(`/project/${p.code}/tcase`, { query: { cf_tc_notes: '<p>short</p>' } });
      expect(found.body.data.map((x: any) => x.id)).toEqual([short.id]);
    });

    it('answers 400 naming a required field left empty', async () => {
      const p = await createProject(t);
      expect(
        (
          await t.post('/custom-field', {
            type: 'text',
            systemName: 'tc_owner',
            name: 'Owner',
            required: true,
          })
        ).status,
      ).toBe(201);
      try {
        const folderId = await createFolder(t, p, ['CF']);
        const res = await t.post(`/project/${p.code}/tcase`, {
          title: 'x',
          type: 'standalone',
          folderId,
          priority: 'low',
        });
        expect(res.status).toBe(400);
        expect(res.body.details[0].path).toBe('/customFields/tc_owner');
      } finally {
        const fields = (await t.get(`/project/${p.code}/custom-field`)).body.customFields;
        const id = fields.find((f: any) => f.systemName === 'tc_owner').id;
        expect((await t.patch(`/custom-field/${id}`, { required: false })).status).toBe(200);
      }
    });
  });

  describe('GET /project/:p/tcase/:id', () => {
    it('finds a case by id, seq, zero-padded seq, legacy id and project code in any case', async () => {
      const p = await createProject(t);
      await createTcase(t, p);
      const c = await createTcase(t, p, { title: 'Second one' });
      await t.db.updateTable('tcases').set({ legacy_id: 'OLD-42' }).where('id', '=', c.id).execute();
      for (const ref of [c.id, '2', '002', '0000002', 'OLD-42']) {
        const res = await t.get(`/project/${p.code.toLowerCase()}/tcase/${ref}`);
        expect(res.status, ref).toBe(200);
        expect(res.body.id).toBe(c.id);
        expect(res.body.legacyId).toBe('OLD-42');
      }
    });

    it('answers 404 for an unknown, a deleted or another project’s case', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const c = await createTcase(t, p);
      const foreign = await createTcase(t, other);
      expect((await t.get(`/project/${p.code}/tcase/${foreign.id}`)).status).toBe(404);
      const res = await t.get(`/project/${p.code}/tcase/77`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        code: 'NOT_FOUND',
        message: `test case "77" not found in project ${p.code}`,
      });
      expect((await t.del(`/project/${p.code}/tcase/${c.id}`)).body).toEqual({
        message: 'Test case deleted',
      });
      expect((await t.get(`/project/${p.code}/tcase/${c.id}`)).status).toBe(404);
      expect((await t.get(`/project/${p.code}/tcase/1`)).status).toBe(404);
    });

    it('adds folder, path and project on request', async () => {
      const p = await createProject(t);
      const folderId = await createFolder(t, p, ['A', 'B']);
      const c = await createTcase(t, p, { folderId });
      const res = await t.get(`/project/${p.code}/tcase/${c.id}`, {
        query: { include: 'folder,path,project' },
      });
      expect(res.body.folder).toMatchObject({ id: folderId, title: 'B' });
      expect(res.body.path.map((f: any) => f.title)).toEqual(['A', 'B']);
      expect(res.body.project).toMatchObject({ id: p.id, code: p.code });
      expect((await t.get(`/project/${p.code}/tcase/${c.id}`, { query: { include: 'nope' } })).status).toBe(
        400,
      );
    });
  });

  describe('PATCH /project/:p/tcase/:id and versions (D15)', () => {
    it('makes version n+1 for each versioned change and keeps every old version readable', async () => {
      const p = await createProject(t);
      const c = await createTcase(t, p, {
        title: 'V1',
        priority: 'low',
        steps: [{ description: 'a', expected: 'A' }, { description: 'b' }],
      });
      const v1Steps = (await getTcase(t, p, c.id)).steps;
      const edits: Record<string, unknown>[] = [
        { title: 'V2' },
        { priority: 'high' },
        { precondition: { text: 'pre' } },
        { steps: [{ description: 'a', expected: 'A' }, { description: 'c' }] },
        { tags: ['t1'] },
        { requirements: [{ text: 'R1', url: '' }] },
        { links: [{ text: 'L', url: 'https://example.com' }] },
        { files: [await uploadFile(t)] },
        { tags: [] },
      ];
      for (const [i, edit] of edits.entries()) {
        const res = await t.patch(`/project/${p.code}/tcase/${c.id}`, edit);
        expect(res.status, JSON.stringify(edit)).toBe(200);
        expect(res.body).toEqual({ message: 'Test case updated' });
        expect((await getTcase(t, p, c.id)).version, JSON.stringify(edit)).toBe(i + 2);
      }
      const latest = await getTcase(t, p, c.id);
      expect(latest).toMatchObject({
        version: 10,
        isLatestVersion: true,
        title: 'V2',
        priority: 'high',
        comment: 'pre',
        tags: [],
        requirements: [{ text: 'R1', url: '' }],
        links: [{ text: 'L', url: 'https://example.com' }],
      });
      expect(latest.files).toHaveLength(1);
      // The unchanged first step kept its id; the changed second one got a new one.
      expect(latest.steps[0].id).toBe(v1Steps[0].id);
      expect(latest.steps[1].id).not.toBe(v1Steps[1].id);

      const v1 = await t.get(`/project/${p.code}/tcase/${c.id}/version/1`);
      expect(v1.status).toBe(200);
      expect(v1.body).toMatchObject({
        id: c.id,
        version: 1,
        isLatestVersion: false,
        title: 'V1',
        priority: 'low',
        comment: '',
        tags: [],
        files: [],
        links: [],
        steps: [{ description: 'a' }, { description: 'b' }],
      });
      const v5 = await t.get(`/project/${p.code}/tcase/${c.seq}/version/6`);
      expect(v5.body).toMatchObject({ version: 6, tags: [{ title: 't1' }], isLatestVersion: false });
      const v10 = await t.get(`/project/${p.code}/tcase/${c.id}/version/10`);
      expect(v10.body).toMatchObject({ version: 10, isLatestVersion: true });
      const missing = await t.get(`/project/${p.code}/tcase/${c.id}/version/11`);
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe(`test case ${p.code}-${c.seq} has no version 11`);
      expect((await t.get(`/project/${p.code}/tcase/${c.id}/version/0`)).status).toBe(400);
      expect((await t.get(`/project/${p.code}/tcase/nosuch/version/1`)).status).toBe(404);
    });

    it('numbers versions without gaps under concurrent edits of one case', async () => {
      const p = await createProject(t);
      const c = await createTcase(t, p, { title: 'start' });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.patch(`/project/${p.code}/tcase/${c.id}`, { title: `edit ${i}` }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect((await getTcase(t, p, c.id)).version).toBe(11);
      for (let v = 1; v <= 11; v++) {
        expect((await t.get(`/project/${p.code}/tcase/${c.id}/version/${v}`)).status, `version ${v}`).toBe(
          200,
        );
      }
    });

    it('makes no new version for a PATCH that changes nothing versioned', async () => {
      const p = await createProject(t);
      const c = await createTcase(t, p, {
        title: 'Same',
        tags: ['x'],
        steps: [{ description: 'one', expected: 'two' }],
        precondition: { text: 'pre' },
      });
      const before = await getTcase(t, p, c.id);
      const res = await t.patch(`/project/${p.code}/tcase/${c.id}`, {
        title: 'Same',
        priority: 'medium',
        tags: ['x'],
        steps: [{ description: 'one', expected: 'two' }],
        precondition: { text: 'pre' },
        links: [],
      });
      expect(res.status).toBe(200);
      const after = await getTcase(t, p, c.id);
      expect(after.version).toBe(1);
      expect(after.steps[0].id).toBe(before.steps[0].id);
      expect(after.precondition.id).toBe(before.precondition.id);
      expect((await t.patch(`/project/${p.code}/tcase/${c.id}`, {})).status).toBe(200);
      expect((await getTcase(t, p, c.id)).version).toBe(1);
    });

    it('moves a case (folder, pos) without a new version, and 409s on a taken position', async () => {
      const p = await createProject(t);
      const from = await createFolder(t, p, ['From']);
      const to = await createFolder(t, p, ['To']);
      await createTcase(t, p, { folderId: to });
      const c = await createTcase(t, p, { folderId: from });
      expect((await t.patch(`/project/${p.code}/tcase/${c.id}`, { folderId: to })).status).toBe(200);
      expect(await getTcase(t, p, c.id)).toMatchObject({ folderId: to, pos: 1, version: 1 });
      expect((await t.patch(`/project/${p.code}/tcase/${c.id}`, { pos: 7 })).status).toBe(200);
      expect(await getTcase(t, p, c.id)).toMatchObject({ pos: 7, version: 1 });
      const clash = await t.patch(`/project/${p.code}/tcase/${c.id}`, { pos: 0 });
      expect(clash.status).toBe(409);
      expect(clash.body.message).toContain(`${p.code}-001`);
      const lost = await t.patch(`/project/${p.code}/tcase/${c.id}`, { folderId: 999999 });
      expect(lost.status).toBe(404);
    });

    it('publishes a draft without a new version and refuses to turn a published case into a draft (D16)', async () => {
      const p = await createProject(t);
      const c = await createTcase(t, p, { isDraft: true });
      expect((await getTcase(t, p, c.id)).isDraft).toBe(true);
      expect((await t.patch(`/project/${p.code}/tcase/${c.id}`, { isDraft: true })).status).toBe(200);
      expect((await t.patch(`/project/${p.code}/tcase/${c.id}`, { isDraft: false })).status).toBe(200);
      expect(await getTcase(t, p, c.id)).toMatchObject({ isDraft: false, version: 1 });
      const back = await t.patch(`/project/${p.code}/tcase/${c.id}`, { isDraft: true });
      expect(back.status).toBe(400);
      expect(back.body.details).toEqual([
        { path: '/isDraft', message: expect.stringContaining('cannot become a draft') },
      ]);
      expect((await getTcase(t, p, c.id)).isDraft).toBe(false);
    });

    it('replaces a shared precondition by text and back, making versions', async () => {
      const p = await createProject(t);
      const preId = await sharedPrecondition(p.code, '<p>shared</p>');
      const c = await createTcase(t, p, { precondition: { text: 'own' } });
      await t.patch(`/project/${p.code}/tcase/${c.id}`, { precondition: { sharedPreconditionId: preId } });
      expect(await getTcase(t, p, c.id)).toMatchObject({
        version: 2,
        comment: '<p>shared</p>',
        precondition: { type: 'shared', id: preId },
      });
      await t.patch(`/project/${p.code}/tcase/${c.id}`, { comment: 'own again' });
      expect(await getTcase(t, p, c.id)).toMatchObject({
        version: 3,
        comment: 'own again',
        precondition: { type: 'standalone', text: 'own again' },
      });
    });

    it('shows a later edit of a shared step on the latest case version and the recorded one on old versions', async () => {
      const p = await createProject(t);
      const stepId = await sharedStep(p.code, 'Before');
      const c = await createTcase(t, p, { steps: [{ sharedStepId: stepId }] });
      await t.patch(`/project/${p.code}/tcase/${c.id}`, { title: 'bump' });
      expect((await t.patch(`/project/${p.code}/shared-step/${stepId}`, { title: 'After' })).status).toBe(
        200,
      );
      expect((await getTcase(t, p, c.id)).steps[0]).toMatchObject({
        title: 'After',
        version: 2,
        isLatest: true,
      });
      const old = await t.get(`/project/${p.code}/tcase/${c.id}/version/1`);
      expect(old.body.steps[0]).toMatchObject({ title: 'Before', version: 1, isLatest: false });
    });

    it('answers 400 for bad fields and 404 for an unknown case, changing nothing', async () => {
      const p = await createProject(t);
      const c = await createTcase(t, p, { title: 'Keep' });
      for (const body of [
        { title: '' },
        { type: 'template' },
        { parameterValues: [] },
        { filledTCaseTitleSuffixParams: [] },
        { steps: [{}] },
        { links: [{ text: 'x', url: 'nope' }] },
      ]) {
        const res = await t.patch(`/project/${p.code}/tcase/${c.id}`, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
      expect(await getTcase(t, p, c.id)).toMatchObject({ title: 'Keep', version: 1 });
      expect((await t.patch(`/project/${p.code}/tcase/nosuch`, { title: 'x' })).status).toBe(404);
      expect((await t.del(`/project/${p.code}/tcase/nosuch`)).status).toBe(404);
    });

    it('keeps the tag, requirement and shared-step usage of the latest version only', async () => {
      const p = await createProject(t);
      const stepId = await sharedStep(p.code);
      const c = await createTcase(t, p, {
        tags: ['old'],
        requirements: [{ text: 'R-old', url: '' }],
        steps: [{ sharedStepId: stepId }],
      });
      const tagCount = async (title: string) =>
        (await t.get(`/project/${p.code}/tag`, { query: { include: 'tcaseCount' } })).body.tags.find(
          (x: any) => x.title === title,
        )?.tcaseCount;
      expect(await tagCount('old')).toBe(1);
      await t.patch(`/project/${p.code}/tcase/${c.id}`, { tags: ['new'], steps: [] });
      expect(await tagCount('old')).toBe(0);
      expect(await tagCount('new')).toBe(1);
      // The shared step is no longer used by a latest version, so it can be deleted.
      expect((await t.del(`/project/${p.code}/shared-step/${stepId}`)).status).toBe(200);
      await t.del(`/project/${p.code}/tcase/${c.id}`);
      expect(await tagCount('new')).toBe(0);
    });
  });
});
