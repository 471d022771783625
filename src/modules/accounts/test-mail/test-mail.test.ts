import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMailReceiver, type MailReceiver } from '../../../../test/helpers/mail-receiver.js';
import { userWithKey } from '../../../../test/helpers/factories.js';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { buildApp } from '../../../app.js';

/** The owner's "send a test e-mail": it reaches the owner's address, or says why it cannot. */
describeEachDb('a test e-mail for the owner', (t) => {
  let receiver: MailReceiver;
  let app: Awaited<ReturnType<typeof buildApp>>;

  beforeAll(async () => {
    receiver = await startMailReceiver();
    app = await buildApp({
      config: { ...t.config, smtpUrl: receiver.url, mailFrom: 'Casebook <casebook@casebook.test>' },
      db: t.db,
    });
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  const send = (key: string) =>
    app.inject({
      method: 'POST',
      url: '/api/public/v0/settings/mail/test',
      headers: { authorization: `ApiKey ${key}` },
    });

  it("sends it to the owner's address through the configured mail server and says so", async () => {
    const before = receiver.inbox.length;
    const res = await send(t.ownerKey);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ sent: true, to: 'owner@example.com' });
    expect(receiver.inbox).toHaveLength(before + 1);
    const mail = receiver.inbox.at(-1)!;
    expect(mail.to).toEqual(['owner@example.com']);
    expect(mail.from).toBe('casebook@casebook.test');
    expect(mail.text).toContain('Subject: Casebook test e-mail');
    expect(mail.text).toContain(`from Casebook at ${t.config.publicUrl}`);
  });

  it("answers sent: false with the mail server's refusal in words when the server refuses it", async () => {
    receiver.failNext(true);
    try {
      const before = receiver.inbox.length;
      const res = await send(t.ownerKey);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        sent: false,
        to: 'owner@example.com',
        error: expect.stringContaining('mailbox unavailable'),
      });
      expect(receiver.inbox).toHaveLength(before);
    } finally {
      receiver.failNext(false);
    }
  });

  it('refuses an admin and anyone below the owner with 403, and sends nothing', async () => {
    const before = receiver.inbox.length;
    for (const role of ['admin', 'user'] as const) {
      const { key } = await userWithKey(t, role);
      const res = await send(key);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN');
    }
    expect(receiver.inbox).toHaveLength(before);
  });

  it('answers 409 in words when no mail is configured', async () => {
    // The suite's own app has no CASEBOOK_SMTP_URL.
    const res = await t.post('/settings/mail/test');
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      code: 'CONFLICT',
      message:
        'mail is not configured: set CASEBOOK_SMTP_URL (and CASEBOOK_MAIL_FROM) and restart the service',
    });
  });
});
