import { beforeAll, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { createRun } from '../../../test/helpers/run-factories.js';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createWebhook, deliveries, deliveryHarness } from '../../../test/helpers/webhook-harness.js';

const SECRET = 'webhook-Shared-Secret-1';
const BEARER = 'rcv-Token-abc123';
const USER = 'casebook';
const PASSWORD = 'Basic-Pass-987';

/** What a receiver could send back of a credential: raw, base64, URL- and JSON-escaped, and the parts of a header. */
const forms = [SECRET, BEARER, `${USER}:${PASSWORD}`, PASSWORD].flatMap((v) => [
  v,
  Buffer.from(v).toString('base64'),
  encodeURIComponent(v),
]);

/**
 * Header values and the secret are write-only (only their names and hasSecret are shown); the answer a receiver
 * gives is kept for the admin, so a receiver quoting the request back must not make them readable there.
 */
describeEachDb(
  'webhooks: a receiver quoting the credentials back',
  (t) => {
    const h = deliveryHarness(t);
    let project: { id: string; code: string };
    beforeAll(async () => {
      project = await createProject(t);
    });

    it('keeps its answer with the secret and header values masked, in every form they came back in', async () => {
      const id = await createWebhook(t, {
        endpoint: `${h.receiver.url}/hook`,
        secret: SECRET,
        headers: {
          Authorization: `Bearer ${BEARER}`,
          'X-Basic': `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`,
          'X-Team': 'qa',
        },
      });
      h.receiver.respond = (req) => ({
        status: 401,
        body: JSON.stringify({
          got: req.headers,
          token: BEARER,
          encoded: Buffer.from(BEARER).toString('base64'),
          login: `${USER}:${PASSWORD}`,
          query: `?p=${encodeURIComponent(PASSWORD)}`,
          secret: SECRET,
        }),
      });
      await createRun(t, project);
      await h.drain();
      expect(h.receiver.requests).toHaveLength(1);
      const [d] = await deliveries(t, id);
      expect(d).toMatchObject({ status: 'failed', responseCode: 401, error: 'HTTP 401' });
      const kept = JSON.parse(d.responseBody);
      expect(kept).toMatchObject({ token: '****', login: '****', secret: '****' });
      expect(kept.got.authorization).toBe('****');
      expect(kept.got['x-team']).toBe('qa');
      const detail = await t.get(`/webhook/${id}/delivery/${d.id}`);
      for (const where of [JSON.stringify(detail.body), JSON.stringify(await deliveries(t, id))])
        for (const form of forms) expect(where, form).not.toContain(form);
    });
  },
  { env: { CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
