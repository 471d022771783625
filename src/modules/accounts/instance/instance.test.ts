import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userWithKey } from '../../../../test/helpers/factories.js';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { buildApp } from '../../../app.js';

/** The owner's instance page: the tenant, its public address and whether mail is set up. */
describeEachDb("the tenant's details for the owner", (t) => {
  const get = (key: string, target = t.app) =>
    target.inject({
      method: 'GET',
      url: '/api/public/v0/settings/instance',
      headers: { authorization: `ApiKey ${key}` },
    });

  it('answers the tenant, the public address and "mail not configured" when no mail server is set', async () => {
    const res = await get(t.ownerKey);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      tenant: expect.objectContaining({
        id: t.tenantId,
        features: expect.arrayContaining(['advanced-auth']),
      }),
      publicUrl: t.config.publicUrl,
      publicUrlSet: t.config.publicUrlSet,
      mail: { configured: false },
    });
  });

  describe('with a mail server configured', () => {
    let app: Awaited<ReturnType<typeof buildApp>>;
    beforeAll(async () => {
      app = await buildApp({
        config: {
          ...t.config,
          smtpUrl: 'smtps://mailer:s3cret-pass@mail.example.com:465',
          mailFrom: 'Casebook <qa@example.com>',
        },
        db: t.db,
      });
    });
    afterAll(async () => app?.close());

    it('names the mail server and the sender, never the credentials in its address', async () => {
      const res = await get(t.ownerKey, app);
      expect(res.statusCode).toBe(200);
      expect(res.json().mail).toEqual({
        configured: true,
        server: 'smtps://mail.example.com:465',
        from: 'Casebook <qa@example.com>',
      });
      expect(res.body).not.toContain('s3cret');
      expect(res.body).not.toContain('mailer');
    });
  });

  it('answers 403 to an admin: the tenant is the owner’s', async () => {
    const { key } = await userWithKey(t, 'admin');
    const res = await get(key);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('FORBIDDEN');
  });
});
