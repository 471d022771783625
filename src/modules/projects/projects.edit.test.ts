import { expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';

/** docs/api-decisions.md#project-edits: PATCH /project/:project. */
describeEachDb('project edits', (t) => {
  it('changes title, overview and links, sanitises the description and answers the project', async () => {
    const p = await createProject(t);
    const res = await t.patch(`/project/${p.code.toLowerCase()}`, {
      title: `  Renamed ${p.code}  `,
      overviewTitle: 'About',
      overviewDescription: '<p>Hello <img src="x" onerror="alert(1)"></p><script>bad()</script>',
      links: [{ url: 'https://example.com/wiki', text: 'Wiki' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: p.id,
      code: p.code,
      title: `Renamed ${p.code}`,
      overviewTitle: 'About',
      links: [{ url: 'https://example.com/wiki', text: 'Wiki' }],
    });
    expect(res.body.overviewDescription).not.toMatch(/script|onerror/);
    expect(res.body.description).toBe(res.body.overviewDescription);
    const row = await t.db
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', p.id)
      .executeTakeFirstOrThrow();
    expect(row.title).toBe(`Renamed ${p.code}`);
    expect(row.overview_description).toBe(res.body.overviewDescription);
  });

  it('changes only the given fields', async () => {
    const p = await createProject(t, { links: [{ url: 'https://a.example', text: 'A' }] });
    const res = await t.patch(`/project/${p.code}`, { overviewTitle: 'Only this' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: p.title, links: [{ url: 'https://a.example', text: 'A' }] });
  });

  it('answers 409 when another project has the title', async () => {
    const p = await createProject(t);
    const q = await createProject(t);
    const res = await t.patch(`/project/${p.code}`, { title: q.title });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 'CONFLICT', message: `a project with the title "${q.title}" exists` });
  });

  it('answers 400 for a blank title, a non-http link, an empty body and the code', async () => {
    const p = await createProject(t);
    expect((await t.patch(`/project/${p.code}`, { title: ' ' })).body.details).toEqual([
      { path: '/title', message: expect.any(String) },
    ]);
    const link = await t.patch(`/project/${p.code}`, { links: [{ url: 'javascript:alert(1)', text: 'x' }] });
    expect(link.body.details).toEqual([{ path: '/links/0/url', message: expect.any(String) }]);
    expect((await t.patch(`/project/${p.code}`, {})).status).toBe(400);
    expect((await t.patch(`/project/${p.code}`, { code: 'NEW' })).status).toBe(400);
  });

  it('is for admins (D3): a user gets 403; an archived project is read-only (403)', async () => {
    const p = await createProject(t);
    const user = await userWithKey(t, 'user');
    expect((await t.patch(`/project/${p.code}`, { title: 'x' }, { key: user.key })).status).toBe(403);
    await t.post(`/project/${p.code}/archive`);
    const res = await t.patch(`/project/${p.code}`, { title: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('archived');
  });
});
