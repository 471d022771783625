import { expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject } from '../../../../test/helpers/factories.js';
import { createFolder, createTcase, getTcase } from '../../../../test/helpers/tcase-factories.js';

describeEachDb('test case templates', (t) => {
  const template = (overrides: Record<string, unknown> = {}) => ({
    type: 'template',
    title: 'Log in as ${role} on ${browser}',
    priority: 'high',
    precondition: { text: '<p>${role} exists</p>' },
    steps: [
      { description: 'open ${browser}', expected: 'it starts' },
      { description: 'sign in as <b>${role}</b>', expected: 'welcome ${role}' },
    ],
    tags: ['auth'],
    links: [{ text: 'Wiki', url: 'https://example.com/wiki' }],
    requirements: [{ text: 'REQ-LOGIN', url: '' }],
    filledTCaseTitleSuffixParams: ['browser'],
    parameterValues: [
      { values: { role: 'admin', browser: 'chrome' } },
      { values: { role: 'guest', browser: 'firefox' } },
    ],
    ...overrides,
  });
  const filledOf = async (code: string, templateId: string) =>
    (
      await t.get(`/project/${code}/tcase`, {
        query: { templateTCaseIds: templateId, include: 'steps,precondition,tags,requirements,customFields' },
      })
    ).body.data;

  it('expands each parameter set into a filled case with placeholders replaced and the title suffix', async () => {
    const p = await createProject(t);
    const folderId = await createFolder(t, p, ['Auth']);
    const tpl = await createTcase(t, p, template({ folderId }));
    expect(tpl.seq).toBe(1);

    const got = await getTcase(t, p, tpl.id);
    expect(got).toMatchObject({
      type: 'template',
      title: 'Log in as ${role} on ${browser}',
      comment: '<p>${role} exists</p>',
      steps: [{ description: 'open ${browser}' }, { description: 'sign in as <b>${role}</b>' }],
      filledTCaseTitleSuffixParams: ['browser'],
      numFilledTCases: 2,
    });
    expect(got.templateTCaseId).toBeUndefined();

    const filled = await filledOf(p.code, tpl.id);
    expect(
      filled.map((f: any) => [f.seq, f.title, f.type, f.templateTCaseId, f.priority, f.folderId]),
    ).toEqual([
      [2, 'Log in as admin on chrome [chrome]', 'filled', tpl.id, 'high', folderId],
      [3, 'Log in as guest on firefox [firefox]', 'filled', tpl.id, 'high', folderId],
    ]);
    expect(filled[0]).toMatchObject({
      comment: '<p>admin exists</p>',
      precondition: { type: 'standalone', text: '<p>admin exists</p>' },
      steps: [
        { type: 'standalone', description: 'open chrome', expected: 'it starts' },
        { type: 'standalone', description: 'sign in as <b>admin</b>', expected: 'welcome admin' },
      ],
      tags: [{ title: 'auth' }],
      requirements: [{ text: 'REQ-LOGIN', url: '' }],
      links: [{ text: 'Wiki', url: 'https://example.com/wiki' }],
      isDraft: false,
    });
    expect(filled[0].parameterValues).toBeUndefined();
    expect(filled[0].numFilledTCases).toBeUndefined();
    expect(got.parameterValues).toEqual([
      { tcaseId: filled[0].id, tcaseVersion: 1, values: { role: 'admin', browser: 'chrome' } },
      { tcaseId: filled[1].id, tcaseVersion: 1, values: { role: 'guest', browser: 'firefox' } },
    ]);
  });

  it('sanitises values substituted into HTML (D22) but keeps them literal in the title', async () => {
    const p = await createProject(t);
    const tpl = await createTcase(
      t,
      p,
      template({
        filledTCaseTitleSuffixParams: [],
        parameterValues: [{ values: { role: '<img src=x onerror=alert(1)>', browser: 'a & b' } }],
      }),
    );
    const [f] = await filledOf(p.code, tpl.id);
    expect(f.title).toBe('Log in as <img src=x onerror=alert(1)> on a & b');
    expect(f.steps[1].description).not.toContain('onerror');
    expect(f.steps[0].description).toBe('open a &amp; b');
  });

  it('answers 400 naming a placeholder without a value or a suffix parameter missing, creating nothing', async () => {
    const p = await createProject(t);
    const folderId = await createFolder(t, p, ['T']);
    const res = await t.post(
      `/project/${p.code}/tcase`,
      template({
        folderId,
        parameterValues: [{ values: { role: 'x', browser: 'y' } }, { values: { role: 'z' } }],
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { path: '/parameterValues/1/values', message: 'no value for the placeholder ${browser}' },
      { path: '/parameterValues/1/values', message: 'no value for the title suffix parameter "browser"' },
    ]);
    const tooLong = await t.post(
      `/project/${p.code}/tcase`,
      template({ folderId, parameterValues: [{ values: { role: 'x'.repeat(500), browser: 'y' } }] }),
    );
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.message).toContain('longer than 511');
    expect((await t.get(`/project/${p.code}/tcase/count`)).body.count).toBe(0);
  });

  it('creates a template without parameter values and with no placeholders', async () => {
    const p = await createProject(t);
    const tpl = await createTcase(t, p, { type: 'template', title: 'Plain' });
    expect(await getTcase(t, p, tpl.id)).toMatchObject({
      parameterValues: [],
      filledTCaseTitleSuffixParams: [],
      numFilledTCases: 0,
    });
  });

  it('carries a template edit to its filled cases as new versions', async () => {
    const p = await createProject(t);
    const tpl = await createTcase(t, p, template());
    const res = await t.patch(`/project/${p.code}/tcase/${tpl.id}`, {
      title: 'Sign in as ${role} with ${browser}',
      tags: ['auth', 'login'],
    });
    expect(res.status).toBe(200);
    expect((await getTcase(t, p, tpl.id)).version).toBe(2);
    const filled = await filledOf(p.code, tpl.id);
    expect(filled.map((f: any) => [f.title, f.version, f.tags.map((x: any) => x.title)])).toEqual([
      ['Sign in as admin with chrome [chrome]', 2, ['auth', 'login']],
      ['Sign in as guest with firefox [firefox]', 2, ['auth', 'login']],
    ]);
    const old = await t.get(`/project/${p.code}/tcase/${filled[0].id}/version/1`);
    expect(old.body).toMatchObject({ title: 'Log in as admin on chrome [chrome]', isLatestVersion: false });
    // A filled case keeps its own priority through template edits.
    await t.patch(`/project/${p.code}/tcase/${filled[0].id}`, { priority: 'low' });
    await t.patch(`/project/${p.code}/tcase/${tpl.id}`, { priority: 'medium' });
    expect((await getTcase(t, p, filled[0].id)).priority).toBe('low');
    expect((await getTcase(t, p, filled[1].id)).priority).toBe('high');
  });

  it('answers 400 naming a new placeholder that existing filled cases have no value for', async () => {
    const p = await createProject(t);
    const tpl = await createTcase(t, p, template());
    const res = await t.patch(`/project/${p.code}/tcase/${tpl.id}`, {
      title: 'Log in as ${role} at ${time}',
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('no value for the placeholder ${time}');
    expect((await getTcase(t, p, tpl.id)).version).toBe(1);
    const ok = await t.patch(`/project/${p.code}/tcase/${tpl.id}`, {
      title: 'Log in as ${role} at ${time}',
      parameterValues: (await getTcase(t, p, tpl.id)).parameterValues.map((pv: any) => ({
        tcaseId: pv.tcaseId,
        values: { ...pv.values, time: 'noon' },
      })),
    });
    expect(ok.status).toBe(200);
    expect((await filledOf(p.code, tpl.id)).map((f: any) => f.title)).toEqual([
      'Log in as admin at noon [chrome]',
      'Log in as guest at noon [firefox]',
    ]);
  });

  it('replaces the filled set with parameterValues: updates listed ones, creates new ones, deletes the rest', async () => {
    const p = await createProject(t);
    const tpl = await createTcase(t, p, template());
    const [admin, guest] = (await getTcase(t, p, tpl.id)).parameterValues;
    const res = await t.patch(`/project/${p.code}/tcase/${tpl.id}`, {
      parameterValues: [
        { tcaseId: admin.tcaseId, values: { role: 'root', browser: 'chrome' } },
        { values: { role: 'editor', browser: 'safari' } },
      ],
    });
    expect(res.status).toBe(200);
    const got = await getTcase(t, p, tpl.id);
    expect(got.version).toBe(1);
    expect(got.numFilledTCases).toBe(2);
    expect(got.parameterValues).toEqual([
      { tcaseId: admin.tcaseId, tcaseVersion: 2, values: { role: 'root', browser: 'chrome' } },
      { tcaseId: expect.any(String), tcaseVersion: 1, values: { role: 'editor', browser: 'safari' } },
    ]);
    expect((await getTcase(t, p, admin.tcaseId)).title).toBe('Log in as root on chrome [chrome]');
    const created = await getTcase(t, p, got.parameterValues[1].tcaseId);
    expect(created).toMatchObject({ seq: 4, title: 'Log in as editor on safari [safari]', type: 'filled' });
    expect((await t.get(`/project/${p.code}/tcase/${guest.tcaseId}`)).status).toBe(404);

    const unchanged = await t.patch(`/project/${p.code}/tcase/${tpl.id}`, {
      parameterValues: got.parameterValues.map((pv: any) => ({ tcaseId: pv.tcaseId, values: pv.values })),
    });
    expect(unchanged.status).toBe(200);
    expect((await getTcase(t, p, admin.tcaseId)).version).toBe(2);
  });

  it('answers 400 for a parameterValues tcaseId that is not one of its filled cases, or listed twice', async () => {
    const p = await createProject(t);
    const tpl = await createTcase(t, p, template());
    const other = await createTcase(t, p);
    const [admin] = (await getTcase(t, p, tpl.id)).parameterValues;
    const values = { role: 'a', browser: 'b' };
    const foreign = await t.patch(`/project/${p.code}/tcase/${tpl.id}`, {
      parameterValues: [{ tcaseId: other.id, values }],
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.details[0]).toEqual({
      path: '/parameterValues/0/tcaseId',
      message: `test case ${other.id} is not a filled test case of this template`,
    });
    const twice = await t.patch(`/project/${p.code}/tcase/${tpl.id}`, {
      parameterValues: [
        { tcaseId: admin.tcaseId, values },
        { tcaseId: admin.tcaseId, values },
      ],
    });
    expect(twice.status).toBe(400);
    expect((await getTcase(t, p, tpl.id)).numFilledTCases).toBe(2);
  });

  it('lets a filled case change only its priority (a new version), answering 400 for anything else', async () => {
    const p = await createProject(t);
    const tpl = await createTcase(t, p, template());
    const [admin] = (await getTcase(t, p, tpl.id)).parameterValues;
    expect((await t.patch(`/project/${p.code}/tcase/${admin.tcaseId}`, { priority: 'low' })).status).toBe(
      200,
    );
    expect(await getTcase(t, p, admin.tcaseId)).toMatchObject({ priority: 'low', version: 2 });
    for (const body of [{ title: 'x' }, { priority: 'high', tags: [] }, { pos: 3 }, { isDraft: false }]) {
      const res = await t.patch(`/project/${p.code}/tcase/${admin.tcaseId}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain('a filled test case takes only priority');
    }
    expect(await getTcase(t, p, admin.tcaseId)).toMatchObject({ priority: 'low', version: 2 });
  });

  it('keeps filled cases drafts with a draft template and publishes them with it', async () => {
    const p = await createProject(t);
    const tpl = await createTcase(t, p, template({ isDraft: true }));
    const draftFilled = await filledOf(p.code, tpl.id);
    expect(draftFilled.map((f: any) => f.isDraft)).toEqual([true, true]);
    expect((await t.patch(`/project/${p.code}/tcase/${tpl.id}`, { isDraft: false })).status).toBe(200);
    const published = await filledOf(p.code, tpl.id);
    expect(published.map((f: any) => [f.isDraft, f.version])).toEqual([
      [false, 1],
      [false, 1],
    ]);
  });

  it('moves filled cases with their template and deletes them with it', async () => {
    const p = await createProject(t);
    const from = await createFolder(t, p, ['From']);
    const to = await createFolder(t, p, ['To']);
    const tpl = await createTcase(t, p, template({ folderId: from }));
    expect((await t.patch(`/project/${p.code}/tcase/${tpl.id}`, { folderId: to })).status).toBe(200);
    const filled = await filledOf(p.code, tpl.id);
    expect(filled.map((f: any) => [f.folderId, f.version])).toEqual([
      [to, 1],
      [to, 1],
    ]);
    expect((await t.del(`/project/${p.code}/tcase/${tpl.id}`)).status).toBe(200);
    expect((await t.get(`/project/${p.code}/tcase/count`)).body.count).toBe(0);
    for (const f of filled) expect((await t.get(`/project/${p.code}/tcase/${f.id}`)).status).toBe(404);
  });
});
