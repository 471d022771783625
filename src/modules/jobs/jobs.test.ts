import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { startReceiver, type Receiver } from '../../../test/helpers/receiver.js';
import { createRun } from '../../../test/helpers/run-factories.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createJobRunner } from '../../jobs/index.js';

/** An admin sees the background jobs that gave up, and runs them again. */
describeEachDb(
  'jobs: failed ones, seen and retried by an admin',
  (t) => {
    let tracker: Receiver;
    let project: { id: string; code: string };
    const drain = () => createJobRunner(t.db, t.config, t.app.ctx, { random: () => 1 }).drain();
    beforeAll(async () => {
      tracker = await startReceiver();
      project = await createProject(t);
    });
    afterAll(async () => tracker.close());

    it('lists a tracker comment that failed with its reason, retries it on request, and the comment is then posted', async () => {
      const made = await t.post('/integration', {
        name: 'Code host',
        type: 'tracker_a',
        config: { account: 'acme', apiUrl: tracker.url },
        token: 'ghp_job_token',
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(
        (
          await t.post(`/project/${project.code}/integration`, {
            integrationId: made.body.id,
            config: { repo: 'shop' },
          })
        ).status,
      ).toBe(200);
      const tc = await createTcase(t, project);
      const run = await createRun(t, project, { tcaseIds: [tc.id] });
      tracker.respond = () => ({
        status: 403,
        body: JSON.stringify({ message: 'Resource not accessible by integration' }),
      });
      const res = await t.post(`/project/${project.code}/run/${run.id}/tcase/${tc.id}/result`, {
        status: 'failed',
        links: [{ integrationId: made.body.id, url: 'https://g.test/7', text: 'Bug 7', meta: { id: '7' } }],
      });
      expect(res.status).toBe(201);
      await drain();

      const failed = await t.get('/job', { query: { status: 'failed' } });
      expect(failed.status).toBe(200);
      expect(failed.body.jobs).toEqual([
        {
          id: expect.any(Number),
          kind: 'tracker.comment',
          status: 'failed',
          attempts: 1,
          maxAttempts: 10,
          runAt: expect.any(String),
          lastError: 'the tracker refused access with these credentials (HTTP 403)',
          createdAt: expect.any(String),
          finishedAt: expect.any(String),
          subject: { linkId: expect.any(Number) },
        },
      ]);
      const jobId = failed.body.jobs[0].id;

      // Someone fixed the token's permissions: the admin retries.
      tracker.respond = () => ({ status: 201, body: JSON.stringify({ id: 555 }) });
      const retried = await t.post(`/job/${jobId}/retry`);
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      const detail = await t.get(`/project/${project.code}/run/${run.id}/tcase/${tc.id}`);
      expect(detail.body.results[0].links[0].comment).toEqual({
        status: 'pending',
        updatedAt: expect.any(String),
      });
      await drain();
      const after = await t.get(`/project/${project.code}/run/${run.id}/tcase/${tc.id}`);
      expect(after.body.results[0].links[0].comment).toEqual({
        status: 'posted',
        id: '555',
        updatedAt: expect.any(String),
      });
      expect((await t.get('/job', { query: { status: 'failed' } })).body.jobs).toEqual([]);
      // Done now: not retryable again.
      const again = await t.post(`/job/${jobId}/retry`);
      expect(again.status).toBe(409);
      expect(again.body.message).toBe(`job ${jobId} is done: only a failed job can be retried`);
    });

    const failedJob = async (kind: string, status: 'failed' | 'done' = 'failed') => {
      const now = new Date().toISOString();
      const row = await t.db
        .insertInto('jobs')
        .values({
          tenant_id: t.tenantId,
          kind,
          queue_key: null,
          payload: JSON.stringify({ deliveryId: 'none' }),
          status,
          max_attempts: 10,
          attempts: 10,
          run_at: now,
          created_at: now,
          locked_by: null,
          locked_until: null,
          last_error: 'HTTP 500',
          finished_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    };
    const statusOf = async (id: number) =>
      await t.db
        .selectFrom('jobs')
        .select(['status', 'attempts'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();

    it('retries every failed job at once (of one kind when asked), answers how many, and leaves the rest', async () => {
      await t.post('/job/retry'); // what earlier tests left failed
      const deliveries = [await failedJob('webhook.deliver'), await failedJob('webhook.deliver')];
      const event = await failedJob('webhook.event');
      const done = await failedJob('webhook.deliver', 'done');

      const some = await t.post('/job/retry', undefined, { query: { kind: 'webhook.event' } });
      expect(some.status, JSON.stringify(some.body)).toBe(200);
      expect(some.body).toEqual({ retried: 1 });
      expect(await statusOf(event)).toEqual({ status: 'pending', attempts: 0 });
      expect(await statusOf(deliveries[0]!)).toMatchObject({ status: 'failed' });

      const all = await t.post('/job/retry');
      expect(all.body).toEqual({ retried: 2 });
      for (const id of deliveries) expect(await statusOf(id)).toEqual({ status: 'pending', attempts: 0 });
      expect(await statusOf(done)).toMatchObject({ status: 'done' });
      expect((await t.get('/job', { query: { status: 'failed' } })).body.jobs).toEqual([]);

      // Nothing failed any more: nothing to do, and that is no error.
      expect((await t.post('/job/retry')).body).toEqual({ retried: 0 });
      await t.db
        .deleteFrom('jobs')
        .where('id', 'in', [...deliveries, event, done])
        .execute();
    });

    it('retries nothing for a non-admin (403) or a bad query (400)', async () => {
      const id = await failedJob('webhook.deliver');
      const { key } = await userWithKey(t, 'test-runner');
      const denied = await t.post('/job/retry', undefined, { key });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('FORBIDDEN');
      const bad = await t.post('/job/retry', undefined, { query: { kind: '' } });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_FAILED');
      const extra = await t.post('/job/retry', undefined, { query: { status: 'done' } });
      expect(extra.status).toBe(400);
      expect(await statusOf(id)).toEqual({ status: 'failed', attempts: 10 });
      await t.db.deleteFrom('jobs').where('id', '=', id).execute();
    });

    it('answers 404 for an unknown job, 400 for a bad status, and 403 to a non-admin', async () => {
      expect((await t.post('/job/999999/retry')).status).toBe(404);
      const bad = await t.get('/job', { query: { status: 'lost' } });
      expect(bad.status).toBe(400);
      const { key } = await userWithKey(t, 'user');
      expect((await t.get('/job', { key })).status).toBe(403);
      expect((await t.post('/job/1/retry', undefined, { key })).status).toBe(403);
    });
  },
  { env: { CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
