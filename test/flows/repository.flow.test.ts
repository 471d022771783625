import { expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { createProject } from '../helpers/factories.js';

/**
 * The repository round trip: a folder tree, custom fields, tags, a shared step and a shared precondition, a
 * template with two parameter sets, then everything read back through list and get with every include.
 */
describeEachDb('flow: test case repository', (t) => {
  it('builds a repository and reads it back through list and get with every include', async () => {
    const p = await createProject(t, { code: 'REPO' });
    const ok = (res: { status: number; body: unknown }, status = 200) => {
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      return res.body as any;
    };

    // Folder tree: Web / Auth and Web / Checkout.
    const tree = ok(
      await t.post('/project/repo/tcase/folder/bulk', {
        folders: [{ path: ['Web', 'Auth'], comment: '<p>sign-in</p>' }, { path: ['Web', 'Checkout'] }],
      }),
    );
    const [[web, auth], [, checkout]] = tree.ids;

    // Custom fields: a dropdown with a default and a text field.
    ok(
      await t.post('/custom-field', {
        type: 'dropdown',
        systemName: 'flow_layer',
        name: 'Layer',
        options: [{ value: 'ui' }, { value: 'api' }],
        defaultValue: 'ui',
      }),
      201,
    );
    ok(await t.post('/custom-field', { type: 'text', systemName: 'flow_owner', name: 'Owner' }), 201);

    // Shared step and shared precondition.
    const step = ok(
      await t.post('/project/REPO/shared-step', {
        title: 'Open the login page',
        subSteps: [
          { description: 'go to /login', expected: 'the form shows' },
          { description: 'accept cookies', expected: 'the banner closes' },
        ],
      }),
      201,
    );
    const pre = ok(
      await t.post('/project/REPO/shared-precondition', {
        title: 'Clean browser',
        text: '<p>no cookies</p>',
      }),
      201,
    );

    // A template with two parameter sets, using both, with tags, a requirement, a link and custom fields.
    const tpl = ok(
      await t.post('/project/REPO/tcase', {
        title: 'Sign in as ${role}',
        type: 'template',
        folderId: auth,
        priority: 'high',
        precondition: { sharedPreconditionId: pre.id },
        steps: [
          { sharedStepId: step.id },
          { description: 'sign in as ${role}', expected: '${role} dashboard' },
        ],
        tags: ['auth', 'smoke'],
        requirements: [{ text: 'AUTH-1', url: 'https://tracker.example.com/AUTH-1' }],
        links: [{ text: 'Design', url: 'https://example.com/design' }],
        customFields: { flow_owner: { value: 'qa-team' } },
        filledTCaseTitleSuffixParams: ['role'],
        parameterValues: [{ values: { role: 'admin' } }, { values: { role: 'viewer' } }],
      }),
      201,
    );
    expect(tpl.seq).toBe(1);
    // A standalone case elsewhere in the tree.
    const pay = ok(
      await t.post('/project/REPO/tcase', {
        title: 'Pay by card',
        type: 'standalone',
        folderId: checkout,
        priority: 'medium',
        precondition: { text: '<p>cart has items</p>' },
        steps: [{ description: 'pay', expected: 'receipt' }],
        tags: ['smoke'],
        customFields: { flow_layer: { value: 'api' } },
      }),
      201,
    );
    expect(pay.seq).toBe(4);

    // The list with every include.
    const list = ok(
      await t.get('/project/REPO/tcase', {
        query: {
          include: [
            'precondition',
            'steps',
            'tags',
            'project',
            'folder',
            'path',
            'requirements',
            'customFields',
            'parameterValues',
          ],
        },
      }),
    );
    expect(list).toMatchObject({ total: 4, offset: 0, limit: 5000, page: 1 });
    const [template, admin, viewer, payCase] = list.data;
    expect(template).toMatchObject({
      id: tpl.id,
      type: 'template',
      title: 'Sign in as ${role}',
      folderId: auth,
      comment: '<p>no cookies</p>',
      isEmpty: false,
      precondition: { type: 'shared', id: pre.id, title: 'Clean browser', text: '<p>no cookies</p>' },
      tags: [{ title: 'auth' }, { title: 'smoke' }],
      requirements: [{ text: 'AUTH-1', url: 'https://tracker.example.com/AUTH-1' }],
      links: [{ text: 'Design', url: 'https://example.com/design' }],
      customFields: {
        flow_owner: { value: 'qa-team', isDefault: false },
        flow_layer: { value: 'ui', isDefault: true },
      },
      filledTCaseTitleSuffixParams: ['role'],
      numFilledTCases: 2,
      parameterValues: [
        { tcaseId: admin.id, tcaseVersion: 1, values: { role: 'admin' } },
        { tcaseId: viewer.id, tcaseVersion: 1, values: { role: 'viewer' } },
      ],
      project: { id: p.id, code: 'REPO' },
      folder: { id: auth, title: 'Auth', parentId: web },
      path: [
        { id: web, title: 'Web', parentId: 0 },
        { id: auth, title: 'Auth', parentId: web },
      ],
    });
    expect(template.steps).toEqual([
      expect.objectContaining({
        id: step.id,
        type: 'shared',
        title: 'Open the login page',
        subSteps: [
          expect.objectContaining({ type: 'shared_sub_step', description: 'go to /login' }),
          expect.objectContaining({ type: 'shared_sub_step', description: 'accept cookies' }),
        ],
      }),
      expect.objectContaining({ type: 'standalone', description: 'sign in as ${role}' }),
    ]);
    expect(admin).toMatchObject({
      type: 'filled',
      seq: 2,
      title: 'Sign in as admin [admin]',
      templateTCaseId: tpl.id,
      steps: [
        { id: step.id, type: 'shared' },
        { description: 'sign in as admin', expected: 'admin dashboard' },
      ],
      precondition: { type: 'shared', id: pre.id },
      tags: [{ title: 'auth' }, { title: 'smoke' }],
      customFields: template.customFields,
      path: template.path,
    });
    expect(viewer).toMatchObject({ seq: 3, title: 'Sign in as viewer [viewer]' });
    expect(payCase).toMatchObject({
      id: pay.id,
      folder: { id: checkout, title: 'Checkout' },
      path: [{ title: 'Web' }, { title: 'Checkout' }],
      precondition: { type: 'standalone', text: '<p>cart has items</p>' },
      steps: [{ type: 'standalone', description: 'pay', expected: 'receipt', version: 1, isLatest: true }],
      customFields: { flow_layer: { value: 'api', isDefault: false } },
      tags: [{ title: 'smoke' }],
    });
    expect(payCase.parameterValues).toBeUndefined();

    // GET one agrees with the list item (every relation present).
    const one = ok(await t.get(`/project/repo/tcase/002`));
    const { project: _p, folder: _f, path: _path, ...adminWithoutTreeAndProject } = admin;
    expect(one).toEqual(adminWithoutTreeAndProject);
    const got = ok(
      await t.get(`/project/REPO/tcase/${tpl.id}`, { query: { include: 'folder,path,project' } }),
    );
    expect(got).toEqual(template);

    // Filters across the repository.
    const tags = ok(await t.get('/project/REPO/tag', { query: { include: 'tcaseCount' } })).tags;
    const smoke = tags.find((x: any) => x.title === 'smoke');
    expect(smoke.tcaseCount).toBe(4);
    const bySmokeAndHigh = ok(
      await t.get('/project/REPO/tcase', { query: { tags: smoke.id, priorities: 'high' } }),
    );
    expect(bySmokeAndHigh.data.map((c: any) => c.seq)).toEqual([1, 2, 3]);
    const api = ok(await t.get('/project/REPO/tcase', { query: { cf_flow_layer: 'api' } }));
    expect(api.data.map((c: any) => c.seq)).toEqual([4]);
    expect(
      ok(await t.get('/project/REPO/tcase/count', { query: { folders: web, recursive: true } })),
    ).toEqual({
      count: 4,
    });
    const bySeq = ok(await t.post('/project/REPO/tcase/seq', { seqIds: ['repo-003', 'REPO-004', 'REPO-9'] }));
    expect(bySeq.data.map((c: any) => c.title)).toEqual(['Sign in as viewer [viewer]', 'Pay by card']);

    // The shared step is in use by the latest versions: deleting it is refused.
    const inUse = await t.del(`/project/REPO/shared-step/${step.id}`);
    expect(inUse.status).toBe(409);

    // Editing the template reaches the filled cases as new versions; old versions stay readable.
    ok(
      await t.patch(`/project/REPO/tcase/${tpl.id}`, {
        steps: [{ description: 'sign in as ${role} with 2FA', expected: '${role} dashboard' }],
        parameterValues: [
          { tcaseId: admin.id, values: { role: 'admin' } },
          { tcaseId: viewer.id, values: { role: 'auditor' } },
        ],
      }),
    );
    const filledNow = ok(
      await t.get('/project/REPO/tcase', { query: { templateTCaseIds: tpl.id, include: 'steps' } }),
    ).data;
    expect(filledNow.map((c: any) => [c.title, c.version, c.steps.map((s: any) => s.description)])).toEqual([
      ['Sign in as admin [admin]', 2, ['sign in as admin with 2FA']],
      ['Sign in as auditor [auditor]', 2, ['sign in as auditor with 2FA']],
    ]);
    const v1 = ok(await t.get(`/project/REPO/tcase/${viewer.id}/version/1`));
    expect(v1).toMatchObject({ title: 'Sign in as viewer [viewer]', isLatestVersion: false });
    expect(v1.steps[0]).toMatchObject({ id: step.id, type: 'shared' });
    // No latest version uses the shared step any more, so it can go now.
    expect((await t.del(`/project/REPO/shared-step/${step.id}`)).status).toBe(200);
  });
});
