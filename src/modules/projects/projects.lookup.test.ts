import { expect, it } from 'vitest';
import type { LogEvent } from 'kysely';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, ownerActor, userWithKey } from '../../../test/helpers/factories.js';
import { createRun } from '../../../test/helpers/run-factories.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';
import { findProjectByRef } from './projects.repository.js';
import { rememberProject, resolveProject } from './projects.service.js';

// Every statement the app runs (a query log turns the direct paths of db/prepared.ts off, so all are seen).
const statements: string[] = [];
const log = (event: LogEvent) => {
  if (event.level === 'query') statements.push(event.query.sql);
};

describeEachDb(
  'finding the project a request names',
  (t) => {
    it('authenticates the key and finds the project in one statement, by code in any case or by id', async () => {
      const p = await createProject(t);
      for (const ref of [p.code.toLowerCase(), p.id]) {
        statements.length = 0;
        const res = await t.get(`/project/${ref}`);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ id: p.id, code: p.code });
        expect(statements).toHaveLength(1);
        for (const table of ['api_keys', 'projects', 'project_members'])
          expect(statements[0]).toContain(table);
      }
    });

    it('checks the membership of a user who is not an admin in the same statement: 200 or 403', async () => {
      const member = await userWithKey(t, 'user');
      const outsider = await userWithKey(t, 'user');
      const p = await createProject(t, {}, [member.user.id]);
      // A key's first use also records when it was used (at most once a minute): not part of the lookup.
      for (const { key } of [member, outsider]) expect((await t.get('/project', { key })).status).toBe(200);
      statements.length = 0;
      expect((await t.get(`/project/${p.code}`, { key: member.key })).status).toBe(200);
      expect(statements).toHaveLength(1);
      statements.length = 0;
      const refused = await t.get(`/project/${p.code}`, { key: outsider.key });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toMatch(/no access/);
      expect(statements).toHaveLength(1);
    });

    it('answers 404 for a project that does not exist and 401, telling nothing of it, for a wrong secret', async () => {
      const p = await createProject(t);
      const missing = await t.get('/project/NOPE');
      expect(missing.status).toBe(404);
      expect(missing.body.message).toMatch(/NOPE/);
      const wrongSecret = `${t.ownerKey.split('.').slice(0, 2).join('.')}.not-the-secret`;
      const denied = await t.get(`/project/${p.code}`, { key: wrongSecret });
      expect(denied.status).toBe(401);
      expect(JSON.stringify(denied.body)).not.toContain(p.id);
      expect(JSON.stringify(denied.body)).not.toContain(p.title);
    });

    it('reads only the key for a write, which checks the project as it is when it writes', async () => {
      const p = await createProject(t);
      const tcase = await createTcase(t, p);
      const run = await createRun(t, p, { tcaseIds: [tcase.id] });
      statements.length = 0;
      const res = await t.post(`/project/${p.code}/run/${run.id}/tcase/${tcase.seq}/result`, {
        status: 'passed',
        comment: '',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(statements[0]).toContain('api_keys');
      expect(statements[0]).not.toContain('projects');
      // The service checks the project, once (in the group's transaction when results arrive together).
      expect(statements.filter((s) => /from "projects"/.test(s))).toHaveLength(1);
      const archived = await t.post(`/project/${p.code}/archive`);
      expect(archived.body.archivedAt).toEqual(expect.any(String));
      const refused = await t.post(`/project/${p.code}/run/${run.id}/tcase/${tcase.seq}/result`, {
        status: 'failed',
        comment: '',
      });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toMatch(/archived/);
    });

    it('uses what authentication read once, in the first resolution of a read, and never for a write', async () => {
      // Service level: a remembered row that differs from the database shows which one was used.
      const p = await createProject(t);
      const actor = ownerActor(t);
      const row = await findProjectByRef(t.db, t.tenantId, p.code);
      const remembered = { ref: p.code, row: { ...row!, title: 'As authentication read it' }, member: true };
      rememberProject(actor, remembered);
      expect((await resolveProject(t.db, actor, p.code)).title).toBe('As authentication read it');
      expect((await resolveProject(t.db, actor, p.code)).title).toBe(p.title);
      // A first resolution of another ref takes it away too.
      rememberProject(actor, remembered);
      expect((await resolveProject(t.db, actor, p.id)).title).toBe(p.title);
      expect((await resolveProject(t.db, actor, p.code)).title).toBe(p.title);
      // A write reads the database: archived there, though not in what authentication read.
      await t.post(`/project/${p.code}/archive`);
      rememberProject(actor, { ...remembered, row: { ...row!, archived_at: null } });
      await expect(resolveProject(t.db, actor, p.code, { write: true })).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
    });

    it('finds the project afresh in each request: a project created after a failed lookup is found', async () => {
      const code = 'LATE';
      expect((await t.get(`/project/${code}`)).status).toBe(404);
      const p = await createProject(t, { code });
      expect((await t.get(`/project/${code}`)).body.id).toBe(p.id);
    });
  },
  { db: { log } },
);
