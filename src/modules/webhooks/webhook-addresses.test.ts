import { expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';

/** IPv6 forms that embed or route to internal IPv4, and non-global IPv6, are refused when a webhook is saved. */
describeEachDb(
  'webhooks: endpoints on IPv6 forms of internal addresses',
  (t) => {
    const internal = [
      '::ffff:127.0.0.1',
      '::127.0.0.1',
      '::ffff:0:a00:1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::a00:1',
      '2002:7f00:1::',
      '2002:a9fe:a9fe::1',
      '2001::1',
      'fec0::1',
      'fc00::1',
      'fe80::1',
    ];

    it('refuses each on create and on update with a 400 naming the address, and stores nothing', async () => {
      for (const address of internal) {
        const endpoint = `https://[${address}]/hook`;
        const res = await t.post('/webhook', {
          name: `Internal ${address}`,
          endpoint,
          eventTypes: ['run_created'],
        });
        expect(res.status, `${address}: ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.details).toEqual([
          {
            path: '/endpoint',
            message: expect.stringMatching(/^refused: .* is a private or reserved address/),
          },
        ]);
      }
      expect(await t.db.selectFrom('webhooks').select('id').execute()).toEqual([]);
      const made = await t.post('/webhook', {
        name: 'Public',
        endpoint: 'https://[2606:4700::1111]/hook',
        eventTypes: ['run_created'],
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      for (const address of internal) {
        const res = await t.patch(`/webhook/${made.body.id}`, { endpoint: `https://[${address}]/hook` });
        expect(res.status, address).toBe(400);
      }
      expect((await t.get(`/webhook/${made.body.id}`)).body.endpoint).toBe('https://[2606:4700::1111]/hook');
    });
  },
  { env: { CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'false' } },
);
