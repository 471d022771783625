import { beforeEach, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../../test/helpers/test-app.js';
import { auditRows, createProject, userWithKey } from '../../../../test/helpers/factories.js';
import { createApiKey } from '../../api-keys/api-keys.service.js';

/*
 * An invitation gives the projects it names, or all of them (those made later too), so an invited tester lands
 * on their projects instead of "No active projects yet"; a tenant may make "all projects" the default.
 */

let n = 0;
const email = () => `invitee-${Date.now().toString(36)}-${n++}@example.com`;

/** Accepts the invitation as the invitee would, and answers the projects their own key lists. */
async function accept(t: TestEnv, link: string): Promise<string[]> {
  const token = link.split('/').pop()!;
  const res = await t.post(
    '/api/auth/register',
    { token, name: 'Invited Tester', password: 'a good password' },
    { key: null },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const { key } = await createApiKey(t.db, t.tenantId, { userId: res.body.id, name: 'theirs' });
  const projects = await t.get('/project', { key });
  expect(projects.status).toBe(200);
  return (projects.body.projects as { code: string }[]).map((p) => p.code).sort();
}

describeEachDb('invitations: project access', (t) => {
  beforeEach(async () => {
    await t.request('PUT', '/users/access-defaults', { body: { newMembersJoinAllProjects: false } });
  });

  it('makes the invitee a member of the projects it names, and says which in its answer, its list and the audit log', async () => {
    const [a, b] = [await createProject(t), await createProject(t)];
    const other = await createProject(t);
    const to = email();
    const res = await t.post('/users/invitations', {
      email: to,
      role: 'test-runner',
      projects: [a.code, b.id],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      allProjects: false,
      projects: [
        { id: a.id, code: a.code, title: a.title },
        { id: b.id, code: b.code, title: b.title },
      ],
    });
    const listed = (await t.get('/users/invitations')).body.invitations.find(
      (i: { id: string }) => i.id === res.body.id,
    );
    expect(listed.projects.map((p: { code: string }) => p.code)).toEqual([a.code, b.code]);
    // The contract's event keeps exactly its meta; what the invitation grants is a Casebook event beside it.
    const invited = (await auditRows(t, 'invite_user')).at(-1)!;
    expect(Object.keys(JSON.parse(invited.meta as string)).sort()).toEqual(['invited_email', 'invited_role']);
    expect(JSON.parse((await auditRows(t, 'invitation.projects')).at(-1)!.meta as string)).toEqual({
      invited_email: to,
      all_projects: false,
      project_codes: [a.code, b.code],
    });
    const theirs = await accept(t, res.body.link);
    expect(theirs).toEqual([a.code, b.code].sort());
    expect(theirs).not.toContain(other.code);
  });

  it('joins every project, and the ones made later, when the invitation is for all projects', async () => {
    const before = await createProject(t);
    const res = await t.post('/users/invitations', { email: email(), role: 'user', allProjects: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ allProjects: true, projects: [] });
    const theirs = await accept(t, res.body.link);
    expect(theirs).toContain(before.code);
    const later = await createProject(t);
    const user = await t.db
      .selectFrom('project_members')
      .select('user_id')
      .where('project_id', '=', later.id)
      .execute();
    expect(user).toHaveLength(2); // its creator and the invitee
  });

  it("grants all projects to an invitation that names none once the tenant's default says so, and only the named ones otherwise", async () => {
    const project = await createProject(t);
    const set = await t.request('PUT', '/users/access-defaults', {
      body: { newMembersJoinAllProjects: true },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((await t.get('/users/access-defaults')).body).toEqual({ newMembersJoinAllProjects: true });
    expect(JSON.parse((await auditRows(t, 'access_defaults.updated')).at(-1)!.meta as string)).toEqual({
      new_members_join_all_projects: true,
    });
    const plain = await t.post('/users/invitations', { email: email(), role: 'viewer' });
    expect(plain.body.allProjects).toBe(true);
    expect(await accept(t, plain.body.link)).toContain(project.code);
    const named = await t.post('/users/invitations', { email: email(), role: 'viewer', projects: [] });
    expect(named.body).toMatchObject({ allProjects: false, projects: [] });
    expect(await accept(t, named.body.link)).toEqual([]);
  });

  it('refuses an unknown project or both kinds of choice with the field named, storing nothing, and the setting to a non-admin', async () => {
    const project = await createProject(t);
    const to = email();
    const unknown = await t.post('/users/invitations', {
      email: to,
      role: 'user',
      projects: [project.code, 'NOPE'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ path: '/projects/1', message: 'project "NOPE" not found' }]);
    const both = await t.post('/users/invitations', {
      email: to,
      role: 'user',
      projects: [project.code],
      allProjects: true,
    });
    expect(both.status).toBe(400);
    expect(both.body.details[0].path).toBe('/projects');
    const stored = await t.db.selectFrom('invitations').select('id').where('email', '=', to).execute();
    expect(stored).toEqual([]);
    const { key } = await userWithKey(t, 'user');
    const denied = await t.request('PUT', '/users/access-defaults', {
      body: { newMembersJoinAllProjects: true },
      key,
    });
    expect(denied.status).toBe(403);
    expect((await t.get('/users/access-defaults')).body).toEqual({ newMembersJoinAllProjects: false });
  });
});
