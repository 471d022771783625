import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { startReceiver, type Receiver } from '../../../test/helpers/receiver.js';
import { createRun } from '../../../test/helpers/run-factories.js';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createWebhook, deliveryHarness } from '../../../test/helpers/webhook-harness.js';
import { openWebhookSecrets } from './webhooks.service.js';

/** The secret and headers of a webhook are given for one receiver: they follow its endpoint only within its origin. */
describeEachDb(
  'webhooks: secret and headers follow the endpoint only within its origin',
  (t) => {
    const h = deliveryHarness(t);
    let other: Receiver;
    let project: { id: string; code: string };
    beforeAll(async () => {
      other = await startReceiver();
      project = await createProject(t);
    });
    afterAll(() => other.close());

    const stored = async (id: string) => {
      const row = await t.db
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return { endpoint: row.endpoint, ...openWebhookSecrets(t.config.secretKey, row) };
    };
    const auditCount = async () =>
      (await t.db.selectFrom('audit_events').select('id').where('action', '=', 'webhook.updated').execute())
        .length;

    it('refuses to move a webhook with a secret and headers to another origin unless they are sent again, and changes nothing', async () => {
      const id = await createWebhook(t, {
        endpoint: 'https://hooks.example.com/casebook',
        secret: 'first-secret-value',
        headers: { Authorization: 'Bearer first-token' },
      });
      const audits = await auditCount();
      for (const endpoint of [
        'https://collector.example.net/casebook', // another host
        'https://hooks.example.com:8443/casebook', // another port
        'https://sub.hooks.example.com/casebook', // a subdomain is another origin too
      ]) {
        const res = await t.patch(`/webhook/${id}`, { endpoint });
        expect(res.status, endpoint).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(['/secret', '/headers']);
        expect(res.body.message).toContain(
          `the endpoint moves to another origin (https://hooks.example.com → ${new URL(endpoint).origin})`,
        );
        expect(res.body.message).toContain('send the secret again');
        expect(res.body.message).toContain('send the headers again');
      }
      // Sending one of the two is not enough: the other is named.
      const half = await t.patch(`/webhook/${id}`, {
        endpoint: 'https://collector.example.net/casebook',
        secret: 'second-secret-value',
      });
      expect(half.status).toBe(400);
      expect(half.body.details.map((d: { path: string }) => d.path)).toEqual(['/headers']);
      // Nothing changed: endpoint, secret, headers, no audit event.
      expect(await stored(id)).toEqual({
        endpoint: 'https://hooks.example.com/casebook',
        secret: 'first-secret-value',
        headers: { Authorization: 'Bearer first-token' },
      });
      expect((await t.get(`/webhook/${id}`)).body).toMatchObject({
        endpoint: 'https://hooks.example.com/casebook',
        hasSecret: true,
        headerNames: ['Authorization'],
      });
      expect(await auditCount()).toBe(audits);
    });

    it('moves to another origin when the same request sends the secret and headers again (same values, new ones or null)', async () => {
      const id = await createWebhook(t, {
        endpoint: 'https://hooks.example.com/a',
        secret: 'first-secret-value',
        headers: { 'X-Token': 'first-token' },
      });
      const same = await t.patch(`/webhook/${id}`, {
        endpoint: 'https://collector.example.net/a',
        secret: 'first-secret-value',
        headers: { 'X-Token': 'first-token' },
      });
      expect(same.status, JSON.stringify(same.body)).toBe(200);
      expect(await stored(id)).toEqual({
        endpoint: 'https://collector.example.net/a',
        secret: 'first-secret-value',
        headers: { 'X-Token': 'first-token' },
      });
      const cleared = await t.patch(`/webhook/${id}`, {
        endpoint: 'https://third.example.org/a',
        secret: null,
        headers: null,
      });
      expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
      expect(cleared.body).toMatchObject({ hasSecret: false, headerNames: [] });
      // With nothing to carry, it moves freely.
      const free = await t.patch(`/webhook/${id}`, { endpoint: 'https://fourth.example.org/b' });
      expect(free.status, JSON.stringify(free.body)).toBe(200);
      expect(free.body.endpoint).toBe('https://fourth.example.org/b');
    });

    it('keeps the secret and headers for a change within the origin: the path, the case of the host, the default port', async () => {
      const id = await createWebhook(t, {
        endpoint: 'https://hooks.example.com/a',
        secret: 'kept-secret-value',
        headers: { 'X-Token': 'kept-token' },
      });
      for (const endpoint of [
        'https://hooks.example.com/b?x=1',
        'https://HOOKS.Example.com/c',
        'https://hooks.example.com:443/d',
      ]) {
        const res = await t.patch(`/webhook/${id}`, { endpoint });
        expect(res.status, `${endpoint}: ${JSON.stringify(res.body)}`).toBe(200);
        expect(res.body).toMatchObject({ endpoint, hasSecret: true, headerNames: ['X-Token'] });
      }
      expect(await stored(id)).toMatchObject({
        secret: 'kept-secret-value',
        headers: { 'X-Token': 'kept-token' },
      });
    });

    it('delivers after an allowed move to the new receiver only, signed with the new secret and without the old headers', async () => {
      const id = await createWebhook(t, {
        endpoint: `${h.receiver.url}/hook`,
        secret: 'old-secret-value',
        headers: { 'X-Token': 'old-token' },
      });
      const refused = await t.patch(`/webhook/${id}`, { endpoint: `${other.url}/hook` });
      expect(refused.status).toBe(400);
      const moved = await t.patch(`/webhook/${id}`, {
        endpoint: `${other.url}/hook`,
        secret: 'new-secret-value',
        headers: null,
      });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      await createRun(t, project);
      await h.drain();
      expect(h.receiver.requests).toHaveLength(0);
      expect(other.requests).toHaveLength(1);
      const [req] = other.requests;
      const ts = req.headers['x-casebook-timestamp'] as string;
      const signed = (secret: string) =>
        `sha256=${createHmac('sha256', secret).update(`${ts}.${req.body}`).digest('hex')}`;
      expect(req.headers['x-casebook-signature']).toBe(signed('new-secret-value'));
      expect(req.headers).not.toHaveProperty('x-token');
      expect(JSON.stringify(req.headers)).not.toContain('old-');
    });
  },
  { env: { CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
