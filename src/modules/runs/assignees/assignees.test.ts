import { beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { auditRows, createProject, userWithKey } from '../../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../../test/helpers/tcase-factories.js';
import { closeRun, createRun, listRunTcases } from '../../../../test/helpers/run-factories.js';

type Person = Awaited<ReturnType<typeof userWithKey>>;

describeEachDb('run test case assignees', (t) => {
  let P: { id: string; code: string; title: string };
  let runner: Person;
  let viewer: Person;
  let outsider: Person;
  let admin: Person;
  let ids: string[];

  const assign = (runId: number, body: unknown, key?: string) =>
    t.post(`/project/${P.code}/run/${runId}/tcase/assign`, body, key ? { key } : {});
  const assignees = async (runId: number, query?: Record<string, string>) =>
    Object.fromEntries(
      (await listRunTcases(t, P, runId, query)).map((c) => [
        c.id,
        c.assignee as { id: number; name: string } | null,
      ]),
    );
  const stored = async (runId: number) =>
    Object.fromEntries(
      (
        await t.db
          .selectFrom('run_tcases')
          .select(['tcase_id', 'assignee_id'])
          .where('run_id', '=', runId)
          .execute()
      ).map((r) => [r.tcase_id, r.assignee_id]),
    );

  beforeAll(async () => {
    runner = await userWithKey(t, 'test-runner');
    viewer = await userWithKey(t, 'viewer');
    outsider = await userWithKey(t, 'test-runner');
    admin = await userWithKey(t, 'admin');
    P = await createProject(t, {}, [runner.user.id, viewer.user.id]);
    const folder = await createFolder(t, P, ['Checkout']);
    ids = [];
    for (const title of ['Pay by card', 'Pay by invoice', 'Refund', 'Cancel order'])
      ids.push((await createTcase(t, P, { folderId: folder, title })).id);
  });

  it('assigns one case and lists it with the assignee, others with null, in both list shapes and the detail', async () => {
    const { id: runId } = await createRun(t, P, { tcaseIds: ids });
    const res = await assign(runId, { tcaseIds: [ids[0]], assigneeId: runner.user.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ assigned: 1, changed: 1 });
    const expected = { id: runner.user.id, name: runner.user.name };
    // Built by the database (no include) and by the service (include=folder): the same items.
    expect(await assignees(runId)).toEqual({
      [ids[0]]: expected,
      [ids[1]]: null,
      [ids[2]]: null,
      [ids[3]]: null,
    });
    expect(await assignees(runId, { include: 'folder' })).toEqual(await assignees(runId));
    const detail = await t.get(`/project/${P.code}/run/${runId}/tcase/${ids[0]}`);
    expect(detail.body.assignee).toEqual(expected);
    expect((await t.get(`/project/${P.code}/run/${runId}/tcase/${ids[1]}`)).body.assignee).toBeNull();
  });

  it('assigns many in one call, unassigns with null, and records an audit event only when something changed', async () => {
    const { id: runId } = await createRun(t, P, { tcaseIds: ids });
    const before = (await auditRows(t, 'run_tcases.assigned', runner.user.id)).length;
    const res = await assign(
      runId,
      { tcaseIds: [ids[0], ids[1], ids[1], ids[2]], assigneeId: admin.user.id },
      runner.key,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ assigned: 3, changed: 3 });
    expect(await stored(runId)).toEqual({
      [ids[0]]: admin.user.id,
      [ids[1]]: admin.user.id,
      [ids[2]]: admin.user.id,
      [ids[3]]: null,
    });
    const events = await auditRows(t, 'run_tcases.assigned', runner.user.id);
    expect(events.length).toBe(before + 1);
    expect(JSON.parse(events.at(-1)!.meta!)).toMatchObject({
      project_code: P.code,
      run_id: runId,
      assignee_id: admin.user.id,
      tcase_count: 3,
      changed_count: 3,
      tcase_ids: [ids[0], ids[1], ids[2]],
    });

    // The same again changes nothing and records nothing.
    const again = await assign(runId, { tcaseIds: [ids[0]], assigneeId: admin.user.id }, runner.key);
    expect(again.body).toEqual({ assigned: 1, changed: 0 });
    expect((await auditRows(t, 'run_tcases.assigned', runner.user.id)).length).toBe(before + 1);

    const off = await assign(runId, { tcaseIds: [ids[0], ids[3]], assigneeId: null }, runner.key);
    expect(off.body).toEqual({ assigned: 2, changed: 1 });
    expect(await stored(runId)).toMatchObject({ [ids[0]]: null, [ids[1]]: admin.user.id, [ids[3]]: null });
    const last = JSON.parse((await auditRows(t, 'run_tcases.assigned', runner.user.id)).at(-1)!.meta!);
    expect(last).toMatchObject({ assignee_id: null, changed_count: 1 });
  });

  it('filters the list by assignee: an id, me (the caller) and none', async () => {
    const { id: runId } = await createRun(t, P, { tcaseIds: ids });
    await assign(runId, { tcaseIds: [ids[0], ids[2]], assigneeId: runner.user.id });
    await assign(runId, { tcaseIds: [ids[1]], assigneeId: admin.user.id });
    const listed = async (assignee: string, key?: string) => {
      const res = await t.get(`/project/${P.code}/run/${runId}/tcase`, { query: { assignee }, key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.tcases.map((c: { id: string }) => c.id).sort();
    };
    expect(await listed(String(runner.user.id))).toEqual([ids[0], ids[2]].sort());
    expect(await listed('me', runner.key)).toEqual([ids[0], ids[2]].sort());
    expect(await listed('me', admin.key)).toEqual([ids[1]]);
    expect(await listed('me')).toEqual([]);
    expect(await listed('none')).toEqual([ids[3]]);
    // With a filter applied in the service (include=folder) the assignee filter still holds.
    const res = await t.get(`/project/${P.code}/run/${runId}/tcase`, {
      query: { assignee: 'none', include: 'folder' },
    });
    expect(res.body.tcases.map((c: { id: string }) => c.id)).toEqual([ids[3]]);
  });

  it('answers 400 for an assignee filter that is not an id, me or none', async () => {
    const { id: runId } = await createRun(t, P, { tcaseIds: ids });
    for (const assignee of ['someone', '-1', '0', 'me,none', '2147483648']) {
      const res = await t.get(`/project/${P.code}/run/${runId}/tcase`, { query: { assignee } });
      expect(res.status, assignee).toBe(400);
      expect(res.body.message).toMatch(/assignee/);
    }
  });

  it('answers 400 naming the cases not in the run, and changes nothing', async () => {
    const { id: runId } = await createRun(t, P, { tcaseIds: ids.slice(0, 2) });
    await assign(runId, { tcaseIds: [ids[0]], assigneeId: runner.user.id });
    const res = await assign(runId, {
      tcaseIds: [ids[0], ids[1], ids[2], 'nope'],
      assigneeId: admin.user.id,
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(`test cases not in run ${runId}: ${ids[2]}, nope`);
    expect(await stored(runId)).toEqual({ [ids[0]]: runner.user.id, [ids[1]]: null });
    // A case removed from the run cannot be assigned either.
    expect(
      (await t.post(`/project/${P.code}/run/${runId}/tcase/remove`, { tcaseIds: [ids[1]] })).status,
    ).toBe(200);
    const removed = await assign(runId, { tcaseIds: [ids[1]], assigneeId: runner.user.id });
    expect(removed.status).toBe(400);
    expect(removed.body.message).toContain(ids[1]);
  });

  it('answers 400 at /assigneeId for an unknown, deactivated, viewer or outside person, and changes nothing', async () => {
    const { id: runId } = await createRun(t, P, { tcaseIds: ids });
    const gone = await userWithKey(t, 'test-runner');
    await t.db
      .updateTable('users')
      .set({ deactivated_at: new Date().toISOString() })
      .where('id', '=', gone.user.id)
      .execute();
    const cases: [number, RegExp][] = [
      [999999, /does not exist/],
      [gone.user.id, /deactivated/],
      [viewer.user.id, /viewer/],
      [outsider.user.id, new RegExp(`no access to project ${P.code}`)],
    ];
    for (const [assigneeId, message] of cases) {
      const res = await assign(runId, { tcaseIds: [ids[0]], assigneeId });
      expect(res.status, String(assigneeId)).toBe(400);
      expect(res.body.message).toMatch(message);
      expect(JSON.stringify(res.body)).toContain('/assigneeId');
    }
    expect(Object.values(await stored(runId)).every((a) => a === null)).toBe(true);
  });

  it('answers 400 for a malformed body', async () => {
    const { id: runId } = await createRun(t, P, { tcaseIds: ids });
    for (const body of [
      { tcaseIds: [], assigneeId: runner.user.id },
      { tcaseIds: [ids[0]] },
      { tcaseIds: [ids[0]], assigneeId: 'me' },
      { tcaseIds: [ids[0]], assigneeId: runner.user.id, extra: 1 },
    ]) {
      expect((await assign(runId, body)).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('answers 409 for a closed run, 404 for an unknown one, and 403 to a viewer', async () => {
    const { id: runId } = await createRun(t, P, { tcaseIds: ids });
    const asViewer = await assign(runId, { tcaseIds: [ids[0]], assigneeId: runner.user.id }, viewer.key);
    expect(asViewer.status).toBe(403);
    await closeRun(t, P, runId);
    const closed = await assign(runId, { tcaseIds: [ids[0]], assigneeId: runner.user.id });
    expect(closed.status).toBe(409);
    expect(closed.body.message).toBe(`run ${runId} is closed`);
    expect(await stored(runId)).toMatchObject({ [ids[0]]: null });
    expect((await assign(987654, { tcaseIds: [ids[0]], assigneeId: null })).status).toBe(404);
  });

  it('assigns in static runs too, not only static_struct ones', async () => {
    const { id: runId } = await createRun(t, P, { type: 'static', queryPlans: [{ tcaseIds: ids }] });
    expect((await assign(runId, { tcaseIds: ids, assigneeId: runner.user.id })).body).toEqual({
      assigned: 4,
      changed: 4,
    });
  });

  it('lists who can be assigned: active members above viewer, and admins', async () => {
    const { id: runId } = await createRun(t, P, { tcaseIds: ids });
    const res = await t.get(`/project/${P.code}/run/${runId}/assignable`, { key: viewer.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const listed = res.body.users.map((u: { id: number }) => u.id);
    expect(listed).toContain(runner.user.id);
    expect(listed).toContain(admin.user.id);
    expect(listed).toContain(t.ownerId);
    expect(listed).not.toContain(viewer.user.id);
    expect(listed).not.toContain(outsider.user.id);
    expect(res.body.users.find((u: { id: number }) => u.id === runner.user.id)).toEqual({
      id: runner.user.id,
      name: runner.user.name,
      email: runner.user.email,
    });
    expect((await t.get(`/project/${P.code}/run/${runId}/assignable`, { key: outsider.key })).status).toBe(
      403,
    );
  });
});
