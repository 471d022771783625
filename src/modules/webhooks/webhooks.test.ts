import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { createRun, closeRun } from '../../../test/helpers/run-factories.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';
import { createWebhook, deliveries, deliveryHarness } from '../../../test/helpers/webhook-harness.js';
import { claimJobs } from '../../outbox/outbox.js';
import { createJobRunner, purgeJobHistory } from '../../jobs/index.js';
import { purgeDeliveryHistory } from './webhook-retention.job.js';
import { attemptDelivery, DELIVERY_JOB } from './webhook-delivery.job.js';
import { outboundGuard } from '../../lib/ssrf.js';
import { enqueueEvent } from './webhook-events.service.js';

const HOUR = 3_600_000;

describeEachDb(
  'webhooks: administration',
  (t) => {
    const lastAudit = async () => {
      const row = await t.db
        .selectFrom('audit_events')
        .selectAll()
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      return { action: row.action, meta: row.meta === null ? undefined : JSON.parse(row.meta) };
    };
    let project: { id: string; code: string };
    beforeAll(async () => {
      project = await createProject(t);
    });

    it('creates a webhook, answers it without secret or header values, and audits webhook.created with **** for secret, headers and payload', async () => {
      const res = await t.post('/webhook', {
        name: 'Chat',
        endpoint: 'https://hooks.example.com/casebook',
        secret: 'very-secret-value',
        headers: { Authorization: 'Bearer xyz' },
        eventTypes: ['run_created', 'results_created'],
        allowAllProjects: false,
        projectIds: [project.id],
        payload: '{"text": "${event}"}',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(await lastAudit()).toEqual({
        action: 'webhook.created',
        meta: {
          webhook_id: res.body.id,
          webhook_name: 'Chat',
          endpoint: 'https://hooks.example.com/casebook',
          enabled: true,
          event_types: ['run_created', 'results_created'],
          allow_all_projects: false,
          allowed_project_count: 1,
          secret: '****',
          headers: '****',
          payload: '****',
        },
      });
      const got = await t.get(`/webhook/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({
        id: res.body.id,
        name: 'Chat',
        hasSecret: true,
        headerNames: ['Authorization'],
        eventTypes: ['run_created', 'results_created'],
        allowAllProjects: false,
        projectIds: [project.id],
        payload: '{"text": "${event}"}',
        enabled: true,
        disabledReason: null,
      });
      expect(JSON.stringify(got.body)).not.toContain('very-secret-value');
      expect(JSON.stringify(got.body)).not.toContain('Bearer xyz');
      // Encrypted at rest.
      const row = await t.db
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      expect(`${row.secret_enc}${row.headers_enc}`).not.toMatch(/very-secret-value|Bearer xyz/);
      expect((await t.get('/webhook')).body.webhooks.map((w: any) => w.id)).toContain(res.body.id);
    });

    it('audits webhook.created without secret, headers, payload or allowed_project_count when not set', async () => {
      const id = await createWebhook(t, { name: 'Plain', endpoint: 'https://hooks.example.com/plain' });
      expect(await lastAudit()).toEqual({
        action: 'webhook.created',
        meta: {
          webhook_id: id,
          webhook_name: 'Plain',
          endpoint: 'https://hooks.example.com/plain',
          enabled: true,
          event_types: ['run_created'],
          allow_all_projects: true,
        },
      });
    });

    it('updates only the given fields and audits webhook.updated with id, name and only what changed; nothing changed = no event', async () => {
      const id = await createWebhook(t, { name: 'Upd', endpoint: 'https://hooks.example.com/u' });
      const res = await t.patch(`/webhook/${id}`, {
        enabled: false,
        secret: 'another-secret-1',
        eventTypes: ['run_closed'],
        allowAllProjects: false,
        projectIds: [project.id],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({
        enabled: false,
        hasSecret: true,
        eventTypes: ['run_closed'],
        projectIds: [project.id],
      });
      expect(await lastAudit()).toEqual({
        action: 'webhook.updated',
        meta: {
          webhook_id: id,
          webhook_name: 'Upd',
          enabled: false,
          secret: '****',
          event_types: ['run_closed'],
          allow_all_projects: false,
          allowed_project_count: 1,
        },
      });
      const before = await lastAudit();
      expect((await t.patch(`/webhook/${id}`, { enabled: false })).status).toBe(200);
      expect(await lastAudit()).toEqual(before);
      const renamed = await t.patch(`/webhook/${id}`, { name: 'Upd 2', secret: null, enabled: true });
      expect(renamed.body).toMatchObject({ name: 'Upd 2', hasSecret: false, enabled: true });
      expect(await lastAudit()).toEqual({
        action: 'webhook.updated',
        meta: { webhook_id: id, webhook_name: 'Upd 2', enabled: true, secret: null },
      });
    });

    it('deletes a webhook and audits webhook.deleted with the fields of webhook.created; 404 afterwards', async () => {
      const id = await createWebhook(t, {
        name: 'Del',
        endpoint: 'https://hooks.example.com/d',
        secret: 'delete-me-secret',
      });
      expect((await t.del(`/webhook/${id}`)).body).toEqual({ message: 'Webhook deleted' });
      expect(await lastAudit()).toEqual({
        action: 'webhook.deleted',
        meta: {
          webhook_id: id,
          webhook_name: 'Del',
          endpoint: 'https://hooks.example.com/d',
          enabled: true,
          event_types: ['run_created'],
          allow_all_projects: true,
          secret: '****',
        },
      });
      const gone = await t.get(`/webhook/${id}`);
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual({ message: `webhook "${id}" not found`, code: 'NOT_FOUND' });
      expect((await t.del(`/webhook/${id}`)).status).toBe(404);
    });

    it('answers 400 (D7) naming the field for an unknown field, an unknown event type, no event types, a bad endpoint, a missing project list, an unknown project and a bad placeholder', async () => {
      const base = { name: 'Bad', endpoint: 'https://hooks.example.com/x', eventTypes: ['run_created'] };
      const cases: [Record<string, unknown>, string][] = [
        [{ ...base, colour: 'red' }, ''],
        [{ ...base, eventTypes: ['run_deleted'] }, '/eventTypes/0'],
        [{ ...base, eventTypes: [] }, '/eventTypes'],
        [{ ...base, endpoint: 'ftp://hooks.example.com/x' }, '/endpoint'],
        [{ ...base, endpoint: 'not a url' }, '/endpoint'],
        [{ ...base, endpoint: 'http://hooks.example.com/x' }, '/endpoint'],
        [{ ...base, endpoint: 'https://169.254.169.254/latest' }, '/endpoint'],
        [{ ...base, allowAllProjects: false }, '/projectIds'],
        [{ ...base, projectIds: ['nope'] }, '/projectIds/0'],
        [{ ...base, payload: '{"a": "${object title}"}' }, '/payload'],
        [{ ...base, headers: { 'Bad Header': 'x' } }, '/headers'],
      ];
      for (const [body, path] of cases) {
        const res = await t.post('/webhook', body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(typeof res.body.message).toBe('string');
        if (path) expect(res.body.details.map((d: any) => d.path).join(' ')).toContain(path);
      }
      expect((await t.post('/webhook', { ...base, colour: 'red' })).body.message).toContain('colour');
    });

    it('answers 409 for a second webhook of the same name and 403 for a non-admin', async () => {
      await createWebhook(t, { name: 'Twice', endpoint: 'https://hooks.example.com/t' });
      const again = await t.post('/webhook', {
        name: 'Twice',
        endpoint: 'https://hooks.example.com/t',
        eventTypes: ['run_created'],
      });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ message: 'a webhook named "Twice" exists', code: 'CONFLICT' });
      const { key } = await userWithKey(t, 'user');
      expect((await t.get('/webhook', { key })).status).toBe(403);
    });
  },
  { env: { CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'false' } },
);

// A started server always has a secret key (src/secret-key.ts); an app built without one is a programming error.
describeEachDb(
  'webhooks: an app built without the secret key',
  (t) => {
    it('stores no secret or headers (an internal error, nothing the client can fix), and accepts a webhook without them', async () => {
      const base = { name: 'NoKey', endpoint: 'https://hooks.example.com/k', eventTypes: ['run_created'] };
      for (const extra of [{ secret: 'a-secret-value' }, { headers: { 'X-Token': 'abc' } }]) {
        const res = await t.post('/webhook', { ...base, ...extra });
        expect(res.status).toBe(500);
        expect(res.body.code).toBe('INTERNAL');
      }
      expect(await t.db.selectFrom('webhooks').select('id').execute()).toEqual([]);
      expect((await t.post('/webhook', base)).status).toBe(201);
    });
  },
  { env: { CASEBOOK_SECRET_KEY: '' } },
);

describeEachDb(
  'webhooks: delivery',
  (t) => {
    const h = deliveryHarness(t);
    let project: { id: string; code: string; title: string };
    beforeAll(async () => {
      project = await createProject(t);
    });

    it('signs each delivery: HMAC-SHA256 of "<timestamp>.<body>", a current timestamp, delivery and event id headers, the default payload', async () => {
      const id = await createWebhook(t, {
        endpoint: `${h.receiver.url}/hook`,
        secret: 'receiver-shared-secret',
        headers: { 'X-Team': 'qa' },
      });
      const run = await createRun(t, project, { title: 'Nightly "main"' });
      expect(h.receiver.requests).toHaveLength(0);
      await h.drain();
      expect(h.receiver.requests).toHaveLength(1);
      const [req] = h.receiver.requests;
      const ts = req.headers['x-casebook-timestamp'] as string;
      expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(300);
      const expected = createHmac('sha256', 'receiver-shared-secret')
        .update(`${ts}.${req.body}`)
        .digest('hex');
      expect(req.headers['x-casebook-signature']).toBe(`sha256=${expected}`);
      expect(req.headers['x-team']).toBe('qa');
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['x-casebook-event']).toBe('run_created');
      const body = JSON.parse(req.body);
      expect(body).toEqual({
        id: req.headers['x-casebook-event-id'],
        event: 'run_created',
        occurredAt: expect.any(String),
        tenant: { id: t.tenantId },
        project: { id: project.id, code: project.code, title: project.title },
        object: { id: run.id, title: 'Nightly "main"', type: 'static_struct', planId: null, tcaseCount: 0 },
      });
      const [d] = await deliveries(t, id);
      expect(d).toMatchObject({
        id: req.headers['x-casebook-delivery'],
        eventId: body.id,
        eventType: 'run_created',
        status: 'succeeded',
        attempts: 1,
        responseCode: 200,
        responseBody: 'ok',
        error: null,
      });
      const one = await t.get(`/webhook/${id}/delivery/${d.id}`);
      expect(one.body.body).toBe(req.body);
    });

    it('retries network errors, 429 and 5xx with exponential back-off and jitter, with the same delivery and event id; then succeeds', async () => {
      const id = await createWebhook(t, { endpoint: `${h.receiver.url}/flaky` });
      const answers = [503, 500, 429, 200];
      h.receiver.respond = () => ({
        status: answers.shift()!,
        headers: (answers.length === 1 ? { 'retry-after': '3' } : {}) as Record<string, string>,
      });
      await createRun(t, project);
      await h.drain();
      const start = h.clock;
      expect(h.receiver.requests).toHaveLength(1);
      let [d] = await deliveries(t, id);
      // random() = 1: the whole delay, 10 s after the first attempt.
      expect(d).toMatchObject({
        status: 'pending',
        attempts: 1,
        responseCode: 503,
        nextAttemptAt: new Date(start + 10_000).toISOString(),
      });
      h.clock = start + 9_999;
      await h.drain();
      expect(h.receiver.requests).toHaveLength(1);
      h.clock = start + 10_000;
      await h.drain();
      expect(h.receiver.requests).toHaveLength(2);
      [d] = await deliveries(t, id);
      expect(d).toMatchObject({
        attempts: 2,
        responseCode: 500,
        nextAttemptAt: new Date(start + 30_000).toISOString(),
      });
      h.clock = start + 30_000;
      await h.drain();
      [d] = await deliveries(t, id);
      // 429 with Retry-After: 3 → 3 s.
      expect(d).toMatchObject({
        attempts: 3,
        responseCode: 429,
        nextAttemptAt: new Date(start + 33_000).toISOString(),
      });
      h.clock = start + 33_000;
      await h.drain();
      [d] = await deliveries(t, id);
      expect(d).toMatchObject({ status: 'succeeded', attempts: 4, responseCode: 200, nextAttemptAt: null });
      const ids = new Set(
        h.receiver.requests.map(
          (r) => `${r.headers['x-casebook-delivery']} ${r.headers['x-casebook-event-id']}`,
        ),
      );
      expect(ids.size).toBe(1);
    });

    it('gives up on another 4xx at once (failed, no retry), and redelivers it as a new delivery of the same event', async () => {
      const id = await createWebhook(t, { endpoint: `${h.receiver.url}/gone` });
      h.receiver.respond = () => ({ status: 410, body: 'x'.repeat(10_000) });
      await createRun(t, project);
      await h.drain();
      h.clock += 10 * HOUR;
      await h.drain();
      expect(h.receiver.requests).toHaveLength(1);
      const [d] = await deliveries(t, id);
      expect(d).toMatchObject({ status: 'failed', attempts: 1, responseCode: 410, error: 'HTTP 410' });
      expect(d.responseBody).toHaveLength(4096);
      h.receiver.respond = () => ({ status: 204 });
      const again = await t.post(`/webhook/${id}/delivery/${d.id}/redeliver`);
      expect(again.status).toBe(201);
      expect(again.body.id).not.toBe(d.id);
      await h.drain();
      expect(h.receiver.requests).toHaveLength(2);
      expect(h.receiver.requests[1].headers['x-casebook-event-id']).toBe(d.eventId);
      expect(h.receiver.requests[1].headers['x-casebook-delivery']).toBe(again.body.id);
      expect(h.receiver.requests[1].body).toBe(h.receiver.requests[0].body);
    });

    it('fails for good after the last attempt, the job visible as failed', async () => {
      const id = await createWebhook(t, { endpoint: `${h.receiver.url}/down` });
      h.receiver.respond = () => ({ status: 502 });
      await createRun(t, project);
      for (let i = 0; i < 12; i++) {
        await h.drain();
        h.clock += HOUR;
      }
      expect(h.receiver.requests).toHaveLength(10);
      const [d] = await deliveries(t, id);
      expect(d).toMatchObject({ status: 'failed', attempts: 10, responseCode: 502 });
      const job = await t.db
        .selectFrom('jobs')
        .selectAll()
        .where('kind', '=', DELIVERY_JOB)
        .executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'failed', last_error: 'HTTP 502' });
    });

    it('disables a webhook whose deliveries have failed for 24 hours, with the reason visible; enabling it clears the reason', async () => {
      const id = await createWebhook(t, { endpoint: `${h.receiver.url}/broken` });
      h.receiver.respond = () => ({ status: 500 });
      await createRun(t, project);
      await h.drain();
      expect((await t.get(`/webhook/${id}`)).body).toMatchObject({
        enabled: true,
        failingSince: new Date(h.clock).toISOString(),
      });
      // Events keep coming, every attempt fails: 24 hours after the first failure the webhook is disabled.
      for (let i = 0; i < 26; i++) {
        h.clock += HOUR;
        await createRun(t, project);
        await h.drain();
      }
      const hook = (await t.get(`/webhook/${id}`)).body;
      expect(hook.enabled).toBe(false);
      expect(hook.disabledReason).toMatch(/every delivery attempt since .* failed \(last: HTTP 500\)/);
      await createRun(t, project);
      const sent = h.receiver.requests.length;
      await h.drain();
      expect(h.receiver.requests).toHaveLength(sent);
      const enabled = await t.patch(`/webhook/${id}`, { enabled: true });
      expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    });

    it('sends nothing for a change that rolled back', async () => {
      await createWebhook(t, { endpoint: `${h.receiver.url}/rollback` });
      await expect(
        t.db.transaction().execute(async (trx) => {
          await enqueueEvent(trx, {
            tenantId: t.tenantId,
            projectId: project.id,
            type: 'run_created',
            object: { id: 1 },
          });
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      // A run whose title is taken is refused (409): no event either.
      const run = await createRun(t, project, { title: 'Taken title' });
      const again = await t.post(`/project/${project.code}/run`, {
        title: 'Taken title',
        type: 'static_struct',
        queryPlans: [{ tcaseIds: [] }],
      });
      expect(again.status).toBe(409);
      await h.drain();
      expect(h.receiver.requests.map((r) => JSON.parse(r.body).object.id)).toEqual([run.id]);
    });

    it('sends only the subscribed events of the listed projects: run_closed, plan_created, tcase_created, tcase_edited', async () => {
      const other = await createProject(t);
      await createWebhook(t, {
        endpoint: `${h.receiver.url}/filtered`,
        eventTypes: ['run_closed', 'plan_created', 'tcase_created', 'tcase_edited'],
        allowAllProjects: false,
        projectIds: [project.id],
      });
      const run = await createRun(t, project);
      await closeRun(t, project, run.id);
      const otherRun = await createRun(t, other);
      await closeRun(t, other, otherRun.id);
      const tc = await createTcase(t, project, { title: 'Login works' });
      expect(
        (await t.patch(`/project/${project.code}/tcase/${tc.id}`, { title: 'Login still works' })).status,
      ).toBe(200);
      const plan = await t.post(`/project/${project.code}/plan`, {
        title: `Plan ${Date.now()}`,
        runs: [{ title: 'P1', queryPlans: [{ tcaseIds: [tc.id] }] }],
      });
      expect(plan.status, JSON.stringify(plan.body)).toBe(201);
      await h.drain();
      const got = h.receiver.requests.map((r) => JSON.parse(r.body));
      expect(got.map((b) => b.event)).toEqual([
        'run_closed',
        'tcase_created',
        'tcase_edited',
        'plan_created',
      ]);
      expect(got.every((b) => b.project.id === project.id)).toBe(true);
      expect(got[1].object).toMatchObject({ id: tc.id, seq: tc.seq, title: 'Login works' });
      expect(got[2].object).toMatchObject({ id: tc.id, title: 'Login still works', version: 2 });
      expect(got[3].object).toMatchObject({ id: plan.body.id, runIds: [expect.any(Number)] });
    });

    it('sends one results_created per batch request and one result_created per single result', async () => {
      await createWebhook(t, {
        endpoint: `${h.receiver.url}/results`,
        eventTypes: ['result_created', 'results_created'],
      });
      const a = await createTcase(t, project);
      const b = await createTcase(t, project);
      const run = await createRun(t, project, { tcaseIds: [a.id, b.id] });
      const batch = await t.post(`/project/${project.code}/run/${run.id}/result/batch`, {
        items: [
          { tcaseId: a.id, status: 'passed' },
          { tcaseId: b.id, status: 'failed', comment: 'boom' },
        ],
      });
      expect(batch.status).toBe(201);
      const single = await t.post(`/project/${project.code}/run/${run.id}/tcase/${a.id}/result`, {
        status: 'blocked',
      });
      expect(single.status).toBe(201);
      await h.drain();
      const got = h.receiver.requests.map((r) => JSON.parse(r.body));
      expect(got.map((g) => g.event)).toEqual(['results_created', 'result_created']);
      expect(got[0].object).toEqual({
        runId: run.id,
        count: 2,
        results: [
          { id: batch.body.ids[0], tcaseId: a.id, status: 'passed' },
          { id: batch.body.ids[1], tcaseId: b.id, status: 'failed' },
        ],
      });
      expect(got[1].object).toEqual({ runId: run.id, id: single.body.id, tcaseId: a.id, status: 'blocked' });
    });

    it('renders a payload template with JSON-escaped values', async () => {
      await createWebhook(t, {
        endpoint: `${h.receiver.url}/template`,
        payload:
          '{"text": "Run ${object.title} in ${project.code}", "id": ${object.id}, "missing": "${object.nope}"}',
      });
      const run = await createRun(t, project, { title: 'Quote " and \\ and\nnew line' });
      await h.drain();
      expect(JSON.parse(h.receiver.requests[0].body)).toEqual({
        text: `Run Quote " and \\ and\nnew line in ${project.code}`,
        id: run.id,
        missing: '',
      });
    });

    it("delivers one webhook's events in event order", async () => {
      await createWebhook(t, { endpoint: `${h.receiver.url}/order` });
      const ids: number[] = [];
      for (let i = 0; i < 8; i++) ids.push((await createRun(t, project)).id);
      await h.drain();
      expect(h.receiver.requests.map((r) => JSON.parse(r.body).object.id)).toEqual(ids);
    });

    it('sends again, with the same event id, a delivery whose runner died mid-way once its lease expired', async () => {
      const id = await createWebhook(t, { endpoint: `${h.receiver.url}/lease`, secret: 'lease-secret-1' });
      await createRun(t, project);
      await h.drain(); // fans out; the delivery itself is sent below by a runner that "dies"
      await t.db.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
      await createRun(t, project);
      // A runner fans the event out, claims the delivery, sends it and dies before recording anything.
      h.clock = Date.now();
      const fanout = createJobRunner(t.db, t.config, t.app.ctx, { now: () => h.clock, concurrency: 0 });
      await fanout.drain();
      h.receiver.requests.length = 0;
      const [job] = await claimJobs(t.db, {
        token: 'dead-runner',
        nowMs: h.clock,
        leaseMs: 60_000,
        limit: 1,
        kinds: [DELIVERY_JOB],
      });
      expect(job).toBeDefined();
      const delivery = await t.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('id', '=', (job.payload as any).deliveryId)
        .executeTakeFirstOrThrow();
      const webhook = await t.db
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const guard = outboundGuard({ allowPrivate: true, allow: [] });
      expect((await attemptDelivery(guard, t.config.secretKey, webhook, delivery, h.clock)).ok).toBe(true);
      // While the lease lasts no other runner takes it.
      h.clock += 59_000;
      await h.drain();
      expect(h.receiver.requests).toHaveLength(1);
      h.clock += 2_000;
      await h.drain();
      expect(h.receiver.requests).toHaveLength(2);
      const [first, second] = h.receiver.requests;
      expect(second.headers['x-casebook-event-id']).toBe(first.headers['x-casebook-event-id']);
      expect(second.headers['x-casebook-delivery']).toBe(first.headers['x-casebook-delivery']);
      // The dead runner's late completion changes nothing.
      const [d] = await deliveries(t, id);
      expect(d).toMatchObject({ status: 'succeeded', attempts: 2 });
    });

    it('test-sends a ping and answers its delivery record', async () => {
      const id = await createWebhook(t, { endpoint: `${h.receiver.url}/ping`, secret: 'ping-secret-123' });
      h.receiver.respond = () => ({ status: 202, body: 'pong' });
      const res = await t.post(`/webhook/${id}/ping`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        eventType: 'ping',
        status: 'succeeded',
        attempts: 1,
        responseCode: 202,
        responseBody: 'pong',
      });
      expect(h.receiver.requests[0].headers['x-casebook-event']).toBe('ping');
      expect(JSON.parse(h.receiver.requests[0].body)).toMatchObject({
        event: 'ping',
        object: { webhookId: id },
      });
      expect((await deliveries(t, id)).map((d) => d.id)).toEqual([res.body.id]);
    });

    it('removes finished jobs and delivery records past the retention in bounded batches, keeping recent and unfinished ones', async () => {
      const id = await createWebhook(t, { endpoint: `${h.receiver.url}/retention` });
      for (let i = 0; i < 5; i++) await createRun(t, project);
      await h.drain();
      h.receiver.respond = () => ({ status: 500 });
      await createRun(t, project);
      await h.drain();
      const finished = await t.db.selectFrom('jobs').select('id').where('status', '=', 'done').execute();
      expect(finished.length).toBe(11); // 6 events fanned out, 5 deliveries sent (and one pending)
      const pending = await t.db.selectFrom('jobs').select('id').where('status', '=', 'pending').execute();
      expect(pending).toHaveLength(1);
      const purge = async (nowMs: number) => ({
        jobs: await purgeJobHistory(t.db, 30, { batchSize: 3, nowMs }),
        deliveries: await purgeDeliveryHistory(t.db, 30, { batchSize: 3, nowMs }),
      });
      expect(await purge(Date.now() + 29 * 24 * HOUR)).toEqual({ jobs: 0, deliveries: 0 });
      expect(await purge(Date.now() + 31 * 24 * HOUR)).toEqual({ jobs: 11, deliveries: 5 });
      expect(await t.db.selectFrom('jobs').select('status').execute()).toEqual([{ status: 'pending' }]);
      expect((await deliveries(t, id)).map((d) => d.status)).toEqual(['pending']);
    });
  },
  { env: { CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true' } },
);

describe('webhooks: endpoint rules', () => {
  it('takes plain http only where allowed', () => {
    const strict = outboundGuard({ allowPrivate: false, allow: ['hooks.internal', '10.1.0.0/16'] });
    expect(strict.httpAllowed(new URL('http://hooks.example.com/'))).toBe(false);
    expect(strict.httpAllowed(new URL('http://hooks.internal/'))).toBe(true);
    expect(strict.httpAllowed(new URL('http://10.1.2.3/'))).toBe(true);
    expect(outboundGuard({ allowPrivate: true, allow: [] }).httpAllowed(new URL('http://x.example/'))).toBe(
      true,
    );
  });
});
