import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { auditRows, createProject, memberWithKey } from '../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../test/helpers/tcase-factories.js';
import { closeRun, createRun, getRun } from '../../../test/helpers/run-factories.js';
import { todayUtc } from '../../lib/time.js';

/** Due dates of runs and of case assignments (extensions.md §8, docs/api-decisions.md#due-dates). */
describeEachDb('due dates', (t) => {
  let P: { id: string; code: string; title: string };
  let tcaseIds: string[];
  let runnerId: number;
  const runUrl = (id: number) => `/project/${P.code}/run/${id}`;
  const dueOf = (runId: number) =>
    t.db
      .selectFrom('run_tcases')
      .select(['tcase_id', 'assignee_id', 'due_at'])
      .where('run_id', '=', runId)
      .orderBy('tcase_id')
      .execute();

  beforeAll(async () => {
    P = await createProject(t);
    const folder = await createFolder(t, P, ['F']);
    tcaseIds = [];
    for (let i = 0; i < 3; i++) tcaseIds.push((await createTcase(t, P, { folderId: folder })).id);
    tcaseIds.sort();
    runnerId = (await memberWithKey(t, 'test-runner', P)).user.id;
  });

  describe('runs', () => {
    it('creates a run with a due date and answers it back with overdue, from the list and the run', async () => {
      const { id } = await createRun(t, P, { tcaseIds, dueAt: '2020-01-31' });
      const listed = await getRun(t, P, id);
      expect(listed).toMatchObject({ dueAt: '2020-01-31', overdue: true });
      const one = await t.get(runUrl(id));
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ id, dueAt: '2020-01-31', overdue: true });
    });

    it('answers a run created without a due date exactly as before: no dueAt, no overdue', async () => {
      const { id } = await createRun(t, P, { tcaseIds });
      const run = await getRun(t, P, id);
      expect('dueAt' in run).toBe(false);
      expect('overdue' in run).toBe(false);
      const nulled = await createRun(t, P, { dueAt: null });
      expect('dueAt' in (await getRun(t, P, nulled.id))).toBe(false);
    });

    it('is not overdue when the day is today or later, nor once the run is closed', async () => {
      const today = todayUtc();
      const { id: due } = await createRun(t, P, { dueAt: today });
      expect(await getRun(t, P, due)).toMatchObject({ dueAt: today, overdue: false });
      const { id: past } = await createRun(t, P, { dueAt: '2021-06-01' });
      await closeRun(t, P, past);
      expect(await getRun(t, P, past)).toMatchObject({ dueAt: '2021-06-01', overdue: false, closed: true });
    });

    it.each([['2026-02-30'], ['31/01/2026'], ['tomorrow'], ['2026-01-31T10:00:00Z'], ['']])(
      'refuses the due date %j with a 400 naming /dueAt and creates no run',
      async (dueAt) => {
        const title = `Refused ${dueAt}`;
        const res = await t.post(`/project/${P.code}/run`, {
          title,
          type: 'static_struct',
          queryPlans: [{ tcaseIds }],
          dueAt,
        });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({
          code: 'VALIDATION_FAILED',
          details: [{ path: '/dueAt', message: 'dueAt must be a calendar date written YYYY-MM-DD, or null' }],
        });
        const runs = (await t.get(`/project/${P.code}/run`)).body.runs as { title: string }[];
        expect(runs.some((r) => r.title === title)).toBe(false);
      },
    );

    it('refuses a due date that is not a string in the schema (400) and stores nothing', async () => {
      const res = await t.post(`/project/${P.code}/run`, {
        title: 'Numbered due',
        type: 'static',
        queryPlans: [{ tcaseIds }],
        dueAt: 20260101,
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    });

    it('edits the due date, null removes it, and a bad one is a 400 that changes nothing', async () => {
      const { id } = await createRun(t, P, { tcaseIds, dueAt: '2030-03-03' });
      const edited = await t.patch(runUrl(id), { dueAt: '2030-04-04' });
      expect(edited.status, JSON.stringify(edited.body)).toBe(200);
      expect(await getRun(t, P, id)).toMatchObject({ dueAt: '2030-04-04', overdue: false });

      const bad = await t.patch(runUrl(id), { title: 'Renamed', dueAt: '2030-04-31' });
      expect(bad.status).toBe(400);
      expect(bad.body.details).toEqual([
        { path: '/dueAt', message: 'dueAt must be a calendar date written YYYY-MM-DD, or null' },
      ]);
      expect(await getRun(t, P, id)).toMatchObject({ dueAt: '2030-04-04' });
      expect((await getRun(t, P, id)).title).not.toBe('Renamed');

      expect((await t.patch(runUrl(id), { dueAt: null })).status).toBe(200);
      expect('dueAt' in (await getRun(t, P, id))).toBe(false);
    });

    it('does not carry the source run’s due date to a clone', async () => {
      const { id } = await createRun(t, P, { tcaseIds, dueAt: '2030-05-05' });
      const clone = await t.post(`/project/${P.code}/run/clone`, { runId: id, title: `Clone ${id}` });
      expect(clone.status, JSON.stringify(clone.body)).toBe(201);
      expect('dueAt' in (await getRun(t, P, clone.body.id))).toBe(false);
    });
  });

  describe('assignments', () => {
    const assign = (runId: number, body: Record<string, unknown>) =>
      t.post(`${runUrl(runId)}/tcase/assign`, body);

    it('assigns cases with a due date, stored on those cases only, and audited with it', async () => {
      const { id } = await createRun(t, P, { tcaseIds });
      const res = await assign(id, {
        tcaseIds: tcaseIds.slice(0, 2),
        assigneeId: runnerId,
        dueAt: '2030-01-15',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ assigned: 2, changed: 2 });
      expect(await dueOf(id)).toEqual([
        { tcase_id: tcaseIds[0], assignee_id: runnerId, due_at: '2030-01-15' },
        { tcase_id: tcaseIds[1], assignee_id: runnerId, due_at: '2030-01-15' },
        { tcase_id: tcaseIds[2], assignee_id: null, due_at: null },
      ]);
      const audit = (await auditRows(t, 'run_tcases.assigned')).at(-1)!;
      expect(JSON.parse(audit.meta as string)).toMatchObject({ run_id: id, due_at: '2030-01-15' });
    });

    it('keeps each case’s due date when none is sent, moves it when one is, and clears it on unassign', async () => {
      const { id } = await createRun(t, P, { tcaseIds });
      await assign(id, { tcaseIds: [tcaseIds[0]!], assigneeId: runnerId, dueAt: '2030-02-01' });
      await assign(id, { tcaseIds: [tcaseIds[1]!], assigneeId: runnerId, dueAt: '2030-02-02' });
      // Re-assigning without a date keeps both dates.
      expect((await assign(id, { tcaseIds: tcaseIds.slice(0, 2), assigneeId: t.ownerId })).status).toBe(200);
      expect((await dueOf(id)).map((r) => r.due_at)).toEqual(['2030-02-01', '2030-02-02', null]);
      // A date sent with the same assignee counts as an edit (assignee unchanged: changed 0).
      const moved = await assign(id, {
        tcaseIds: [tcaseIds[0]!],
        assigneeId: t.ownerId,
        dueAt: '2030-03-01',
      });
      expect(moved.body).toEqual({ assigned: 1, changed: 0 });
      expect((await dueOf(id))[0]!.due_at).toBe('2030-03-01');
      // null removes it; unassigning removes it.
      await assign(id, { tcaseIds: [tcaseIds[0]!], assigneeId: t.ownerId, dueAt: null });
      await assign(id, { tcaseIds: [tcaseIds[1]!], assigneeId: null });
      expect(await dueOf(id)).toEqual([
        { tcase_id: tcaseIds[0], assignee_id: t.ownerId, due_at: null },
        { tcase_id: tcaseIds[1], assignee_id: null, due_at: null },
        { tcase_id: tcaseIds[2], assignee_id: null, due_at: null },
      ]);
    });

    it.each([
      [{ dueAt: '2030-02-29' }, 'dueAt must be a calendar date written YYYY-MM-DD, or null'],
      [{ dueAt: 'soon' }, 'dueAt must be a calendar date written YYYY-MM-DD, or null'],
      [{ assigneeId: null, dueAt: '2030-01-01' }, 'a due date needs an assignee; unassigning removes it'],
    ])('refuses %j with a 400 at /dueAt and changes no case', async (extra, message) => {
      const { id } = await createRun(t, P, { tcaseIds });
      await assign(id, { tcaseIds: [tcaseIds[0]!], assigneeId: runnerId, dueAt: '2030-06-06' });
      const before = await dueOf(id);
      const res = await assign(id, { tcaseIds, assigneeId: runnerId, ...extra });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: '/dueAt', message }] });
      expect(await dueOf(id)).toEqual(before);
    });
  });
});
