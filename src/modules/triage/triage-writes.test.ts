import { describe, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { auditRows, createProject, memberWithKey } from '../../../test/helpers/factories.js';
import { closeRun } from '../../../test/helpers/run-factories.js';
import { cases, runWith } from '../../../test/helpers/report-factories.js';
import { timeout } from '../../../test/helpers/triage-factories.js';
import { failureSignature } from '../../lib/failure-signature.js';
import type { PeriodicJob } from '../../outbox/handler.js';
import { moduleJobs } from '../index.js';

const CHECKOUT = failureSignature(timeout('#checkout')).signature;
const BUG = { url: 'https://bugs.example/SHOP-7', text: 'SHOP-7 checkout times out' };

/** A project with a run whose cases 1 and 2 time out on #checkout, case 3 on #login, case 4 passed. */
async function seeded(t: TestEnv) {
  const p = await createProject(t);
  const cs = await cases(t, p, 4);
  const runId = await runWith(t, p, [
    [cs[0], 'failed', { comment: timeout('#checkout', 100) }],
    [cs[1], 'blocked', { comment: timeout('#checkout', 200) }],
    [cs[2], 'failed', { comment: timeout('#login') }],
    [cs[3], 'passed'],
  ]);
  const latest = await t.db
    .selectFrom('run_tcases')
    .select(['tcase_id', 'latest_result_id'])
    .where('run_id', '=', runId)
    .execute();
  const resultOf = (i: number) => latest.find((r) => r.tcase_id === cs[i].id)!.latest_result_id!;
  return { p, cs, runId, resultOf };
}

const linksOfRun = (t: TestEnv, runId: number) =>
  t.db.selectFrom('result_links').selectAll().where('run_id', '=', runId).orderBy('result_id').execute();

describeEachDb('failure triage: writes', (t) => {
  describe('POST /project/:p/run/:r/failure-group/:signature/link', () => {
    it("links the defect to every case of the run's group as the caller, audited, and skips those linked already", async () => {
      const { p, runId, resultOf } = await seeded(t);
      const runner = await memberWithKey(t, 'test-runner', p);
      const url = `/project/${p.code}/run/${runId}/failure-group/${CHECKOUT}/link`;
      const res = await t.post(url, BUG, { key: runner.key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({
        signature: CHECKOUT,
        linked: [resultOf(0), resultOf(1)].sort(),
        skipped: [],
      });
      const links = await linksOfRun(t, runId);
      expect(links.map((l) => [l.result_id, l.url, l.text, l.linked_by])).toEqual([
        [resultOf(0), BUG.url, BUG.text, runner.user.id],
        [resultOf(1), BUG.url, BUG.text, runner.user.id],
      ]);
      expect(links.every((l) => typeof l.linked_at === 'string' && l.integration_id === null)).toBe(true);
      const [event] = await auditRows(t, 'triage.defect_linked', runner.user.id);
      expect(JSON.parse(event.meta!)).toMatchObject({
        run_id: runId,
        signature: CHECKOUT,
        url: BUG.url,
        results_linked: 2,
      });

      const again = await t.post(url, BUG, { key: runner.key });
      expect(again.body).toEqual({
        signature: CHECKOUT,
        linked: [],
        skipped: [resultOf(0), resultOf(1)].sort(),
      });
      expect(await linksOfRun(t, runId)).toHaveLength(2);

      // The next failure with the signature is offered the defect, linked by the runner.
      const sug = await t.get(`/project/${p.code}/result/${resultOf(0)}/suggestions`);
      expect(sug.body.suggestions[0]).toMatchObject({
        url: BUG.url,
        evidence: [{ resultId: resultOf(1), linkedBy: { id: runner.user.id } }],
      });
    });

    it('links a tracker issue as a person does: the link waits for its comment, which a job posts', async () => {
      const { p, runId } = await seeded(t);
      const made = await t.post('/integration', {
        name: `tracker ${Math.random()}`,
        type: 'tracker_a',
        config: { account: 'acme', apiUrl: 'https://tracker.example/api/v3' },
        token: 'ghp_secret',
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const linked = await t.post(`/project/${p.code}/integration`, {
        integrationId: made.body.id,
        config: { repo: 'shop' },
      });
      expect(linked.status, JSON.stringify(linked.body)).toBe(200);
      const res = await t.post(`/project/${p.code}/run/${runId}/failure-group/${CHECKOUT}/link`, {
        integrationId: made.body.id,
        url: 'https://tracker.example/acme/shop/issues/42',
        text: 'Checkout times out',
        meta: { id: '42' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const links = await linksOfRun(t, runId);
      expect(links.map((l) => l.comment_status)).toEqual(['pending', 'pending']);
      const jobs = await t.db
        .selectFrom('jobs')
        .select('kind')
        .where('kind', '=', 'tracker.comment')
        .execute();
      expect(jobs.length).toBeGreaterThanOrEqual(2);
    });

    it('answers 400 for a link D24 refuses, 404 for an unknown run or group, 403 for a viewer, and writes nothing', async () => {
      const { p, runId } = await seeded(t);
      const viewer = await memberWithKey(t, 'viewer', p);
      const base = `/project/${p.code}/run/${runId}/failure-group`;
      const cases: [string, unknown, number, string | undefined][] = [
        [`${base}/${CHECKOUT}/link`, { url: 'ftp://x', text: 'x' }, 400, undefined],
        [`${base}/${CHECKOUT}/link`, { ...BUG, integrationId: 'nope' }, 400, undefined],
        [`${base}/${CHECKOUT}/link`, { ...BUG, extra: 1 }, 400, undefined],
        [`${base}/${'f'.repeat(32)}/link`, BUG, 404, undefined],
        [`${base}/XYZ/link`, BUG, 400, undefined],
        [`/project/${p.code}/run/999999/failure-group/${CHECKOUT}/link`, BUG, 404, undefined],
        [`/project/NOPE/run/${runId}/failure-group/${CHECKOUT}/link`, BUG, 404, undefined],
        [`${base}/${CHECKOUT}/link`, BUG, 403, viewer.key],
      ];
      for (const [url, body, status, key] of cases) {
        const res = await t.post(url, body, key ? { key } : {});
        expect(res.status, `${url} ${JSON.stringify(res.body)}`).toBe(status);
        expect(res.body.message).toEqual(expect.any(String));
      }
      expect(await linksOfRun(t, runId)).toEqual([]);
      const events = await auditRows(t, 'triage.defect_linked');
      expect(events.filter((e) => JSON.parse(e.meta!).run_id === runId)).toEqual([]);
    });
  });

  describe('POST /project/:p/result/:r/link (accepting a suggestion)', () => {
    it('links the defect to that one result as the caller, audited with the result, and leaves the group alone', async () => {
      const { p, runId, resultOf } = await seeded(t);
      const runner = await memberWithKey(t, 'test-runner', p);
      const res = await t.post(`/project/${p.code}/result/${resultOf(1)}/link`, BUG, { key: runner.key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ resultId: resultOf(1), linked: true });
      const links = await linksOfRun(t, runId);
      expect(links.map((l) => [l.result_id, l.url, l.linked_by])).toEqual([
        [resultOf(1), BUG.url, runner.user.id],
      ]);
      const events = (await auditRows(t, 'triage.defect_linked', runner.user.id)).map((e) =>
        JSON.parse(e.meta!),
      );
      expect(events).toEqual([
        expect.objectContaining({
          run_id: runId,
          result_id: resultOf(1),
          signature: CHECKOUT,
          results_linked: 1,
        }),
      ]);
      const again = await t.post(`/project/${p.code}/result/${resultOf(1)}/link`, BUG, { key: runner.key });
      expect(again.body).toEqual({ resultId: resultOf(1), linked: false });
      expect(await linksOfRun(t, runId)).toHaveLength(1);
    });

    it('answers 400 for a link D24 refuses, 404 for a result of another project, 403 for a viewer; nothing written', async () => {
      const { p, runId, resultOf } = await seeded(t);
      const other = await createProject(t);
      const viewer = await memberWithKey(t, 'viewer', p);
      const url = `/project/${p.code}/result/${resultOf(0)}/link`;
      const cases: [string, unknown, number, string | undefined][] = [
        [url, { url: 'javascript:alert(1)', text: 'x' }, 400, undefined],
        [url, { text: 'no url' }, 400, undefined],
        [`/project/${other.code}/result/${resultOf(0)}/link`, BUG, 404, undefined],
        [`/project/${p.code}/result/999999999/link`, BUG, 404, undefined],
        [url, BUG, 403, viewer.key],
      ];
      for (const [path, body, status, key] of cases) {
        const res = await t.post(path, body, key ? { key } : {});
        expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(status);
        expect(res.body.message).toEqual(expect.any(String));
      }
      expect(await linksOfRun(t, runId)).toEqual([]);
    });
  });

  describe('POST …/failure-group/:signature/known and DELETE /project/:p/failure-group/:signature/known', () => {
    it('keeps a group known when a newer normaliser signs its failures again (the mark follows to the new signature)', async () => {
      const { p, runId } = await seeded(t);
      const OLD = 'e'.repeat(32);
      // As an older version left it: the failures and the known mark under the signature it gave them.
      await t.db
        .updateTable('failure_signatures')
        .set({ signature: OLD, version: 1 })
        .where('run_id', '=', runId)
        .where('signature', '=', CHECKOUT)
        .execute();
      const marked = await t.post(`/project/${p.code}/run/${runId}/failure-group/${OLD}/known`, {
        note: 'sandbox down',
      });
      expect(marked.status, JSON.stringify(marked.body)).toBe(200);

      const job = moduleJobs.find((j) => j.type === 'periodic' && j.name === 'failure signature backfill');
      await (job as PeriodicJob).run(t.db, {} as never);

      const groups = (await t.get(`/project/${p.code}/run/${runId}/failure-group`)).body.groups;
      const checkout = groups.find((g: { signature: string }) => g.signature === CHECKOUT);
      expect(checkout.count).toBe(2);
      expect(checkout.known).toMatchObject({ by: { id: t.ownerId }, runId, note: 'sandbox down' });
      // The old mark stays beside the new one, for results of the old version not signed again yet.
      const marks = await t.db.selectFrom('known_failures').select(['project_id', 'signature']).execute();
      expect(
        marks
          .filter((m) => m.project_id === p.id)
          .map((m) => m.signature)
          .sort(),
      ).toEqual([CHECKOUT, OLD].sort());
    });

    it('marks the group known in the project (who, when, the run, a note), shows it, and takes it back', async () => {
      const { p, runId } = await seeded(t);
      const runner = await memberWithKey(t, 'test-runner', p);
      const res = await t.post(
        `/project/${p.code}/run/${runId}/failure-group/${CHECKOUT}/known`,
        { note: 'staging payment sandbox is down' },
        { key: runner.key },
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const known = {
        by: { id: runner.user.id, name: runner.user.name },
        at: expect.any(String),
        runId,
        note: 'staging payment sandbox is down',
      };
      expect(res.body).toEqual({
        signature: CHECKOUT,
        label: 'locator.click: Timeout <n>ms exceeded.',
        known,
      });
      const row = await t.db
        .selectFrom('known_failures')
        .selectAll()
        .where('project_id', '=', p.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        project_id: p.id,
        signature: CHECKOUT,
        run_id: runId,
        marked_by: runner.user.id,
      });
      const groups = (await t.get(`/project/${p.code}/run/${runId}/failure-group`)).body.groups;
      expect(groups.find((g: { signature: string }) => g.signature === CHECKOUT).known).toEqual(known);
      expect((await t.get(`/project/${p.code}/failure-group/${CHECKOUT}`)).body.known).toEqual(known);
      expect(await auditRows(t, 'triage.marked_known', runner.user.id)).toHaveLength(1);

      // Marked again, with no body (clients send an empty JSON body): the newer mark replaces the older.
      const again = await t.request(
        'POST',
        `/project/${p.code}/run/${runId}/failure-group/${CHECKOUT}/known`,
        {
          headers: { 'content-type': 'application/json' },
        },
      );
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.known).toMatchObject({ by: { id: t.ownerId }, note: '' });
      expect(
        await t.db.selectFrom('known_failures').selectAll().where('project_id', '=', p.id).execute(),
      ).toHaveLength(1);

      const del = await t.del(`/project/${p.code}/failure-group/${CHECKOUT}/known`, { key: runner.key });
      expect(del.status).toBe(204);
      expect(
        await t.db.selectFrom('known_failures').selectAll().where('project_id', '=', p.id).execute(),
      ).toEqual([]);
      expect(await auditRows(t, 'triage.unmarked_known', runner.user.id)).toHaveLength(1);
      const gone = await t.del(`/project/${p.code}/failure-group/${CHECKOUT}/known`);
      expect(gone.status).toBe(404);
      expect(gone.body.message).toContain('not marked known');
    });

    it('answers 403 for a viewer, 404 for a group the run lacks, 400 for a bad note, 403 on an archived project; nothing stored', async () => {
      const { p, runId } = await seeded(t);
      const viewer = await memberWithKey(t, 'viewer', p);
      const url = `/project/${p.code}/run/${runId}/failure-group/${CHECKOUT}/known`;
      expect((await t.post(url, {}, { key: viewer.key })).status).toBe(403);
      expect((await t.post(url, { note: 5 })).status).toBe(400);
      expect(
        (await t.post(`/project/${p.code}/run/${runId}/failure-group/${'a'.repeat(32)}/known`, {})).status,
      ).toBe(404);
      expect(
        (await t.del(`/project/${p.code}/failure-group/${CHECKOUT}/known`, { key: viewer.key })).status,
      ).toBe(403);
      expect((await t.post(`/project/${p.code}/archive`)).status).toBe(200);
      const archived = await t.post(url, {});
      expect(archived.status).toBe(403);
      expect(archived.body.message).toContain('archived');
      expect(
        await t.db.selectFrom('known_failures').selectAll().where('project_id', '=', p.id).execute(),
      ).toEqual([]);
    });

    it('marks and links on a closed run: triage comes after the run', async () => {
      const { p, runId } = await seeded(t);
      await closeRun(t, p, runId);
      expect(
        (await t.post(`/project/${p.code}/run/${runId}/failure-group/${CHECKOUT}/known`, {})).status,
      ).toBe(200);
      expect(
        (await t.post(`/project/${p.code}/run/${runId}/failure-group/${CHECKOUT}/link`, BUG)).status,
      ).toBe(200);
    });
  });
});
