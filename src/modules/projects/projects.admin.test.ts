import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { populateProject, tableCounts } from '../../../test/security/fixtures.js';
import { clientFor } from '../../../test/security/matrix.js';

describeEachDb('projects administration', (t) => {
  const lastAudit = async () => {
    const row = await t.db
      .selectFrom('audit_events')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    return {
      action: row.action,
      userId: row.user_id,
      meta: row.meta === null ? undefined : JSON.parse(row.meta),
    };
  };
  const meta = (p: { id: string; code: string; title: string }) => ({
    project_id: p.id,
    project_code: p.code,
    project_title: p.title,
  });

  describe('POST /project/:p/archive and /unarchive', () => {
    it('archives: the project reads as before, refuses writes with 403, and the event names it', async () => {
      const p = await createProject(t);
      const res = await t.post(`/project/${p.code.toLowerCase()}/archive`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: p.id, code: p.code, archivedAt: expect.any(String) });
      expect(await lastAudit()).toEqual({ action: 'archive_project', userId: t.ownerId, meta: meta(p) });
      expect((await t.get(`/project/${p.code}`)).body.archivedAt).toBe(res.body.archivedAt);
      expect((await t.get(`/project/${p.code}/tcase/folders`)).status).toBe(200);
      const write = await t.post(`/project/${p.code}/tcase/folder/bulk`, { folders: [{ path: ['x'] }] });
      expect(write.status).toBe(403);
      expect(write.body.message).toMatch(/archived/);
    });

    it('answers 409 when already archived, or not archived on unarchive, and records nothing', async () => {
      const p = await createProject(t);
      const notArchived = await t.post(`/project/${p.code}/unarchive`);
      expect(notArchived.status).toBe(409);
      await t.post(`/project/${p.code}/archive`);
      const before = await lastAudit();
      const again = await t.post(`/project/${p.code}/archive`);
      expect(again.status).toBe(409);
      expect(again.body.message).toMatch(/already archived/);
      expect(await lastAudit()).toEqual(before);
    });

    it('unarchives: writes work again and unarchive_project is recorded', async () => {
      const p = await createProject(t);
      await t.post(`/project/${p.code}/archive`);
      const res = await t.post(`/project/${p.id}/unarchive`);
      expect(res.status).toBe(200);
      expect(res.body.archivedAt).toBeNull();
      expect(await lastAudit()).toEqual({ action: 'unarchive_project', userId: t.ownerId, meta: meta(p) });
      expect(
        (await t.post(`/project/${p.code}/tcase/folder/bulk`, { folders: [{ path: ['x'] }] })).status,
      ).toBe(200);
    });

    it('is for admins: 403 for a user who is a member, 404 for an unknown project', async () => {
      const member = await userWithKey(t, 'user');
      const admin = await userWithKey(t, 'admin');
      const p = await createProject(t, {}, [member.user.id]);
      expect((await t.post(`/project/${p.code}/archive`, undefined, { key: member.key })).status).toBe(403);
      expect((await t.get(`/project/${p.code}`)).body.archivedAt).toBeNull();
      expect((await t.post(`/project/${p.code}/archive`, undefined, { key: admin.key })).status).toBe(200);
      expect((await t.post('/project/NOPE1/archive')).status).toBe(404);
    });
  });

  describe('DELETE /project/:p', () => {
    it('deletes the project with every row it owned, in every table, and records delete_project', async () => {
      // Tenant-wide things that outlive the project exist before the snapshot. The outbox (`jobs`) keeps the
      // events the project's changes emitted: they are still delivered after it is gone.
      const integrationId = (
        await t.post('/integration', { name: 'Kept', type: 'tracker_c', config: { organizationKey: 'K' } })
      ).body.id;
      const member = await userWithKey(t, 'viewer');
      const before = await tableCounts(t, ['audit_events', 'integrations', 'jobs']);
      const data = await populateProject(clientFor(t, t.ownerKey), {
        members: [member.user.id],
        integrationId,
      });
      const during = await tableCounts(t, ['audit_events', 'integrations', 'jobs']);
      // The fixture reaches the tables it should: most of them got rows.
      const grown = Object.keys(during).filter((k) => during[k] > before[k]);
      expect(grown).toEqual(
        expect.arrayContaining([
          'projects',
          'folders',
          'tcases',
          'tcase_versions',
          'runs',
          'run_tcases',
          'results',
          'plans',
        ]),
      );
      const res = await t.del(`/project/${data.project.code}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Project deleted' });
      expect(await lastAudit()).toEqual({
        action: 'delete_project',
        userId: t.ownerId,
        meta: meta(data.project),
      });
      expect(await tableCounts(t, ['audit_events', 'integrations', 'jobs'])).toEqual(before);
      expect((await t.get(`/project/${data.project.code}`)).status).toBe(404);
      expect((await t.get(`/integration/${integrationId}`)).body.linkedProjectCount).toBe(0);
      expect((await t.del(`/project/${data.project.code}`)).status).toBe(404);
    });

    it('deletes archived projects too, and only the named one', async () => {
      const keep = await createProject(t);
      const p = await createProject(t);
      await t.post(`/project/${p.code}/archive`);
      expect((await t.del(`/project/${p.code}`)).status).toBe(200);
      expect((await t.get(`/project/${keep.code}`)).status).toBe(200);
    });

    it('is also DELETE /api/project/:code of the web application, admin only', async () => {
      const p = await createProject(t);
      const user = await userWithKey(t, 'user');
      const denied = await t.request('DELETE', `/api/project/${p.code}`, { key: user.key });
      expect(denied.status).toBe(403);
      expect((await t.request('DELETE', `/api/project/${p.code}`, { key: null })).status).toBe(401);
      const res = await t.request('DELETE', `/api/project/${p.code.toLowerCase()}`);
      expect(res.status).toBe(200);
      expect(await lastAudit()).toMatchObject({ action: 'delete_project', meta: meta(p) });
      expect((await t.get(`/project/${p.code}`)).status).toBe(404);
    });
  });

  describe('project members', () => {
    it('decides what non-admins see: granted users see and use the project, revoked ones lose it (D3)', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t);
      expect((await t.get(`/project/${p.code}`, { key: viewer.key })).status).toBe(403);
      expect(
        (await t.get('/project', { key: viewer.key })).body.projects.map((x: any) => x.id),
      ).not.toContain(p.id);
      const granted = await t.post(`/project/${p.code}/member`, { userId: viewer.user.id });
      expect(granted.status).toBe(200);
      expect((await t.get(`/project/${p.code}`, { key: viewer.key })).status).toBe(200);
      expect((await t.get('/project', { key: viewer.key })).body.projects.map((x: any) => x.id)).toContain(
        p.id,
      );
      const list = await t.get(`/project/${p.code}/member`);
      expect(list.status).toBe(200);
      expect(list.body.members).toEqual([
        {
          userId: t.ownerId,
          name: 'Owner',
          email: 'owner@example.com',
          role: 'owner',
          createdAt: expect.any(String),
        },
        {
          userId: viewer.user.id,
          name: viewer.user.name,
          email: viewer.user.email,
          role: 'viewer',
          createdAt: expect.any(String),
        },
      ]);
      // Granting twice changes nothing.
      expect((await t.post(`/project/${p.code}/member`, { userId: viewer.user.id })).status).toBe(200);
      expect((await t.get(`/project/${p.code}/member`)).body.members).toHaveLength(2);
      const revoked = await t.del(`/project/${p.code}/member/${viewer.user.id}`);
      expect(revoked.status).toBe(200);
      expect((await t.get(`/project/${p.code}`, { key: viewer.key })).status).toBe(403);
      expect((await t.del(`/project/${p.code}/member/${viewer.user.id}`)).status).toBe(404);
    });

    it('answers 400 for an unknown user, a user of another tenant or a malformed id, and changes nothing', async () => {
      const p = await createProject(t);
      const unknown = await t.post(`/project/${p.code}/member`, { userId: 999999 });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details[0].path).toBe('/userId');
      expect((await t.post(`/project/${p.code}/member`, { userId: '5' })).status).toBe(400);
      expect((await t.post(`/project/${p.code}/member`, {})).status).toBe(400);
      expect((await t.get(`/project/${p.code}/member`)).body.members).toHaveLength(1);
    });

    it('is for admins: 403 for a user, even a member', async () => {
      const user = await userWithKey(t, 'user');
      const p = await createProject(t, {}, [user.user.id]);
      expect((await t.get(`/project/${p.code}/member`, { key: user.key })).status).toBe(403);
      expect(
        (await t.post(`/project/${p.code}/member`, { userId: user.user.id }, { key: user.key })).status,
      ).toBe(403);
      expect((await t.del(`/project/${p.code}/member/${user.user.id}`, { key: user.key })).status).toBe(403);
    });
  });
});
