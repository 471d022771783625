import { beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { userWithKey } from '../../../test/helpers/factories.js';
import { createWebhook } from '../../../test/helpers/webhook-harness.js';

describeEachDb('webhooks: payload preview and delivery pages', (t) => {
  let hook: string;
  beforeAll(async () => {
    hook = await createWebhook(t, { endpoint: 'https://hooks.example.com/x' });
    // 7 deliveries, two of them sharing a created_at: the cursor must still neither skip nor repeat one.
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i === 4 ? 3 : i)).toISOString();
    await t.db
      .insertInto('webhook_deliveries')
      .values(
        Array.from({ length: 7 }, (_, i) => ({
          id: `d${i}`,
          tenant_id: t.tenantId,
          webhook_id: hook,
          event_id: `e${i}`,
          event_type: 'run_created',
          body: '{}',
          status: i % 2 === 0 ? 'succeeded' : 'failed',
          attempts: 1,
          response_code: i % 2 === 0 ? 200 : 500,
          response_body: `answer ${i}`,
          error: null,
          duration_ms: 12,
          created_at: at(i),
          last_attempt_at: at(i),
          next_attempt_at: null,
          finished_at: at(i),
        })),
      )
      .execute();
  });

  it('renders a template against a sample event of the chosen type, JSON-escaped, with the JSON check', async () => {
    const res = await t.post('/webhook/payload-preview', {
      eventType: 'result_created',
      payload: '{"text": "${event} in ${project.code}: ${object.status}", "run": ${object.runId}}',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      eventType: 'result_created',
      body: '{"text": "result_created in SHOP: failed", "run": 12}',
      jsonError: null,
    });
  });

  it('answers the default body without a template, and says why a rendered body is not JSON', async () => {
    const plain = await t.post('/webhook/payload-preview', { eventType: 'run_closed' });
    expect(JSON.parse(plain.body.body)).toMatchObject({
      event: 'run_closed',
      project: { code: 'SHOP' },
      object: { id: 12, title: 'Nightly regression' },
    });
    const broken = await t.post('/webhook/payload-preview', { payload: '{"title": ${object.title}}' });
    expect(broken.status).toBe(200);
    expect(broken.body.body).toBe('{"title": Nightly regression}');
    expect(broken.body.jsonError).toMatch(/^the body is not valid JSON: /);
  });

  it('refuses a malformed placeholder or an unknown event type with the error naming the field', async () => {
    const bad = await t.post('/webhook/payload-preview', { payload: '{"a": "${object..title}"}' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
    expect(bad.body.details).toEqual([
      { path: '/payload', message: '"${object..title}" is not a placeholder like ${object.title}' },
    ]);
    const unknown = await t.post('/webhook/payload-preview', { eventType: 'run_deleted' });
    expect(unknown.status).toBe(400);
    const user = await userWithKey(t, 'user');
    expect((await t.post('/webhook/payload-preview', {}, { key: user.key })).status).toBe(403);
  });

  it('pages deliveries newest first by cursor, every one exactly once, and ends with a null cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: any } = await t.get(`/webhook/${hook}/delivery`, {
        query: cursor === null ? { limit: 3 } : { limit: 3, cursor },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      seen.push(...res.body.deliveries.map((d: { id: string }) => d.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    // d6 is newest; d4 shares d3's created_at and sorts before it by id (descending).
    expect(seen).toEqual(['d6', 'd5', 'd4', 'd3', 'd2', 'd1', 'd0']);
    const first = await t.get(`/webhook/${hook}/delivery`, { query: { limit: 1 } });
    expect(first.body.deliveries[0]).toMatchObject({
      id: 'd6',
      status: 'succeeded',
      responseCode: 200,
      responseBody: 'answer 6',
      durationMs: 12,
    });
  });

  it('lists only the failed deliveries when asked, newest first, paged by cursor like the rest', async () => {
    const first = await t.get(`/webhook/${hook}/delivery`, { query: { status: 'failed', limit: 2 } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.deliveries.map((d: { id: string }) => d.id)).toEqual(['d5', 'd3']);
    const rest = await t.get(`/webhook/${hook}/delivery`, {
      query: { status: 'failed', limit: 2, cursor: first.body.nextCursor },
    });
    expect(rest.body).toMatchObject({ deliveries: [{ id: 'd1', status: 'failed' }], nextCursor: null });
    const bad = await t.get(`/webhook/${hook}/delivery`, { query: { status: 'broken' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
  });

  it('names the webhook and event of a failed delivery job on the jobs list', async () => {
    const now = new Date().toISOString();
    await t.db
      .insertInto('jobs')
      .values({
        tenant_id: t.tenantId,
        kind: 'webhook.deliver',
        queue_key: hook,
        payload: JSON.stringify({ deliveryId: 'd5' }),
        status: 'failed',
        max_attempts: 10,
        attempts: 10,
        run_at: now,
        created_at: now,
        locked_by: null,
        locked_until: null,
        last_error: 'HTTP 500',
        finished_at: now,
      })
      .execute();
    const name = (await t.get(`/webhook/${hook}`)).body.name;
    const res = await t.get('/job', { query: { status: 'failed', kind: 'webhook.deliver' } });
    expect(res.status).toBe(200);
    expect(res.body.jobs.map((j: { subject: unknown }) => j.subject)).toContainEqual({
      deliveryId: 'd5',
      webhookId: hook,
      webhookName: name,
      eventType: 'run_created',
    });
    await t.db.deleteFrom('jobs').where('kind', '=', 'webhook.deliver').execute();
  });

  it('refuses a cursor that is not one, and a cursor with an offset', async () => {
    const bad = await t.get(`/webhook/${hook}/delivery`, { query: { cursor: 'garbage' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ path: '/cursor', message: "cursor is not a page's nextCursor" }]);
    const page = await t.get(`/webhook/${hook}/delivery`, { query: { limit: 2 } });
    const both = await t.get(`/webhook/${hook}/delivery`, {
      query: { cursor: page.body.nextCursor, offset: 2 },
    });
    expect(both.status).toBe(400);
    expect(both.body.details[0].path).toBe('/offset');
  });

  it("counts the webhook's delivery records and the pending ones, not another webhook's", async () => {
    const other = await createWebhook(t, { endpoint: 'https://hooks.example.com/other' });
    const pending = { tenant_id: t.tenantId, event_type: 'run_created', body: '{}', attempts: 0 };
    await t.db
      .insertInto('webhook_deliveries')
      .values([
        {
          ...pending,
          id: 'p1',
          webhook_id: hook,
          event_id: 'ep1',
          status: 'pending',
          created_at: new Date().toISOString(),
        },
        {
          ...pending,
          id: 'p2',
          webhook_id: other,
          event_id: 'ep2',
          status: 'pending',
          created_at: new Date().toISOString(),
        },
      ])
      .execute();
    const res = await t.get(`/webhook/${hook}/delivery/count`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deliveries: 8, pending: 1 });
    expect((await t.get(`/webhook/${other}/delivery/count`)).body).toEqual({ deliveries: 1, pending: 1 });
    await t.db.deleteFrom('webhook_deliveries').where('id', 'in', ['p1', 'p2']).execute();
  });

  it('answers 404 for an unknown webhook and 403 to a non-admin when counting deliveries', async () => {
    const missing = await t.get('/webhook/nope/delivery/count');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
    const user = await userWithKey(t, 'user');
    expect((await t.get(`/webhook/${hook}/delivery/count`, { key: user.key })).status).toBe(403);
  });
});
