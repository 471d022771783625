import { beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject, memberWithKey, userWithKey } from '../../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../../test/helpers/tcase-factories.js';
import { addResult, closeRun, createRun } from '../../../../test/helpers/run-factories.js';
import { statementLog } from '../../../../test/helpers/statement-log.js';
import { addMember } from '../../projects/projects.service.js';

const statements = statementLog();

/** GET /users/me/work (docs/api-decisions.md#my-work): a person's open assigned cases, by run and due date. */
describeEachDb(
  'my work',
  (t) => {
    type Item = { run: { id: number; title: string; open: number; done: number }; tcase: { id: string } };
    const work = (key: string, query: Record<string, string | number> = {}) =>
      t.get('/users/me/work', { key, query: { today: '2030-06-15', ...query } });
    const cases = async (P: { code: string }, n: number) => {
      const folder = await createFolder(t, P, ['F']);
      const ids: string[] = [];
      for (let i = 0; i < n; i++)
        ids.push((await createTcase(t, P, { folderId: folder, title: `Case ${i}` })).id);
      return ids;
    };
    const assign = async (P: { code: string }, runId: number, ids: string[], who: number, dueAt?: string) => {
      const res = await t.post(`/project/${P.code}/run/${runId}/tcase/assign`, {
        tcaseIds: ids,
        assigneeId: who,
        ...(dueAt ? { dueAt } : {}),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };

    let tester: { user: { id: number }; key: string };
    let A: { id: string; code: string };
    let B: { id: string; code: string };
    let gone: { id: string; code: string };
    let runs: Record<string, number>;
    let caseIds: Record<string, string[]>;

    beforeAll(async () => {
      A = await createProject(t);
      B = await createProject(t);
      gone = await createProject(t);
      tester = await memberWithKey(t, 'test-runner', A);
      await addMember(t.db, t.tenantId, B.id, tester.user.id);
      await addMember(t.db, t.tenantId, gone.id, tester.user.id);
      const a = await cases(A, 4);
      const b = await cases(B, 3);
      const g = await cases(gone, 1);
      caseIds = { a, b, g };
      runs = {
        // No run date; one case due the 20th (soonest), one with nothing.
        soon: (await createRun(t, A, { tcaseIds: a.slice(0, 3), title: 'Soon' })).id,
        // The run is overdue (the 10th); its cases inherit it.
        late: (await createRun(t, B, { tcaseIds: b, title: 'Late', dueAt: '2030-06-10' })).id,
        // No date at all.
        none: (await createRun(t, A, { tcaseIds: [a[3]!], title: 'None' })).id,
        closed: (await createRun(t, A, { tcaseIds: a.slice(0, 1), title: 'Closed' })).id,
        gone: (await createRun(t, gone, { tcaseIds: g, title: 'Gone' })).id,
      };
      const me = tester.user.id;
      await assign(A, runs.soon!, [a[1]!], me, '2030-06-20');
      await assign(A, runs.soon!, [a[0]!, a[2]!], me);
      await assign(B, runs.late!, b, me);
      await assign(B, runs.late!, [b[2]!], me, '2030-06-30'); // its own date wins over the run's
      await assign(A, runs.none!, [a[3]!], me);
      await assign(A, runs.closed!, [a[0]!], me, '2030-01-01');
      await assign(gone, runs.gone!, g, me, '2030-01-01');
      // One case of "Late" done by the tester: counted, not listed.
      await addResult(t, B, runs.late!, b[0]!, 'passed', {});
      await closeRun(t, A, runs.closed!);
      // The tester can no longer open "gone": it is not listed though the assignment stays.
      await t.db.deleteFrom('project_members').where('project_id', '=', gone.id).execute();
    });

    it('lists open cases grouped by run: overdue first, then soonest, then no date, with counts', async () => {
      const res = await work(tester.key);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { data, ...totals } = res.body;
      expect(totals).toEqual({ total: 6, offset: 0, limit: 100, open: 6, done: 1, overdue: 1 });
      expect(data.map((i: Item) => [i.run.title, i.tcase.id])).toEqual([
        ['Late', caseIds.b![1]],
        ['Late', caseIds.b![2]],
        ['Soon', caseIds.a![1]],
        ['Soon', caseIds.a![0]],
        ['Soon', caseIds.a![2]],
        ['None', caseIds.a![3]],
      ]);
      expect(data[0]).toMatchObject({
        run: {
          id: runs.late,
          project: { code: B.code },
          dueAt: '2030-06-10',
          overdue: true,
          open: 2,
          done: 1,
        },
        dueAt: '2030-06-10',
        overdue: true,
      });
      expect(data[1]).toMatchObject({ dueAt: '2030-06-30', overdue: false });
      expect(data[2]).toMatchObject({ run: { open: 3, done: 0 }, dueAt: '2030-06-20', overdue: false });
      expect(data[2].run).not.toHaveProperty('dueAt');
      expect(data[3]).not.toHaveProperty('dueAt');
      expect(data[3].overdue).toBe(false);
    });

    it('reads overdue against the day the caller names', async () => {
      const res = await work(tester.key, { today: '2030-06-25' });
      expect(res.body.overdue).toBe(2);
      expect(res.body.data.filter((i: { overdue: boolean }) => i.overdue)).toHaveLength(2);
    });

    it('pages with offset and limit, the counts the same on every page, in one query a page', async () => {
      statements.clear();
      const first = await work(tester.key, { limit: 4 });
      const reads = statements.statements().filter((s) => /from "run_tcases"/.test(s.sql));
      expect(reads).toHaveLength(1);
      const second = await work(tester.key, { limit: 4, offset: 4 });
      expect(first.body.data).toHaveLength(4);
      expect(second.body).toMatchObject({ total: 6, offset: 4, limit: 4, open: 6, done: 1, overdue: 1 });
      const all = (await work(tester.key)).body.data;
      expect([...first.body.data, ...second.body.data]).toEqual(all);
      const past = await work(tester.key, { offset: 50 });
      expect(past.body).toMatchObject({ total: 0, open: 0, done: 1, data: [] });
    });

    it('lists nothing of other people, and an admin sees their own cases in projects they are not a member of', async () => {
      const other = await memberWithKey(t, 'test-runner', A);
      expect((await work(other.key)).body).toMatchObject({ total: 0, done: 0, data: [] });
      const admin = await userWithKey(t, 'admin');
      await assign(gone, runs.gone!, caseIds.g!, admin.user.id);
      const seen = (await work(admin.key)).body.data as Item[];
      expect(seen.map((i) => i.run.title)).toEqual(['Gone']);
    });

    it('leaves out archived projects', async () => {
      const P = await createProject(t, {}, [tester.user.id]);
      const ids = await cases(P, 1);
      const { id } = await createRun(t, P, { tcaseIds: ids, title: 'Archived' });
      await assign(P, id, ids, tester.user.id);
      expect((await work(tester.key)).body.total).toBe(7);
      expect((await t.post(`/project/${P.code}/archive`)).status).toBe(200);
      expect((await work(tester.key)).body.total).toBe(6);
    });

    it('is for people who record results: a viewer gets 403', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const res = await work(viewer.key);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    });

    it.each([
      [{ today: '2030-02-30' }, 'today must be a calendar date written YYYY-MM-DD'],
      [{ limit: 0 }, undefined],
      [{ limit: 501 }, undefined],
      [{ offset: -1 }, undefined],
    ])('answers 400 for %j', async (query, message) => {
      const res = await work(tester.key, query);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      if (message) expect(res.body.message).toContain(message);
    });
  },
  { db: { log: statements.log } },
);
