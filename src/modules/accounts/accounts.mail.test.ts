import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startMailReceiver,
  type MailReceiver,
  type ReceivedMail,
} from '../../../test/helpers/mail-receiver.js';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { buildApp } from '../../app.js';
import { ConfigError, loadConfig } from '../../config.js';
import { sha256 } from '../../lib/crypto.js';
import { createUser } from '../users/users.service.js';

const linkIn = (mail: ReceivedMail, kind: 'invite' | 'reset-password') =>
  new RegExp(`http://casebook\\.test/${kind}/[\\w-]{40,}`).exec(mail.text)?.[0];

async function waitFor<T>(read: () => T | undefined, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('no mail arrived');
    await new Promise((r) => setTimeout(r, 20));
  }
}

let n = 0;
const uniqueEmail = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}@example.com`;

describeEachDb('invitation and reset links by mail (CASEBOOK_SMTP_URL)', (t: TestEnv) => {
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

  const ownerKeyOf = () => t.ownerKey;

  it('mails the invitation link to the invitee and leaves it out of the answer', async () => {
    const email = uniqueEmail('invitee');
    const res = await app.inject({
      method: 'POST',
      url: '/api/public/v0/users/invitations',
      headers: { authorization: `ApiKey ${ownerKeyOf()}` },
      payload: { email, role: 'user' },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.emailed).toBe(true);
    expect(body).not.toHaveProperty('link');
    const mail = await waitFor(() => receiver.inbox.find((m) => m.to.includes(email)));
    expect(mail.from).toBe('casebook@casebook.test');
    expect(mail.text).toContain('Subject: You are invited to Casebook');
    const link = linkIn(mail, 'invite')!;
    const row = await t.db
      .selectFrom('invitations')
      .select('token_hash')
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(sha256(link.split('/').pop()!));
    // The mailed link works: it opens the sign-up.
    const preview = await app.inject({
      method: 'POST',
      url: '/api/auth/invitation',
      payload: { token: link.split('/').pop() },
    });
    expect(preview.statusCode).toBe(200);
    expect(preview.json()).toMatchObject({ email, role: 'user' });
  });

  it('answers the link to the admin when the mail cannot be sent', async () => {
    receiver.failNext(true);
    try {
      const email = uniqueEmail('bounced');
      const res = await app.inject({
        method: 'POST',
        url: '/api/public/v0/users/invitations',
        headers: { authorization: `ApiKey ${ownerKeyOf()}` },
        payload: { email, role: 'viewer' },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({
        emailed: false,
        link: expect.stringMatching(/\/invite\/[\w-]{40,}$/),
      });
    } finally {
      receiver.failNext(false);
    }
  });

  it("mails an admin's reset link to the user's stored address and leaves it out of the answer", async () => {
    const email = uniqueEmail('Forgetful');
    const user = await createUser(t.db, t.tenantId, {
      email,
      name: 'F',
      role: 'viewer',
      password: 'long enough 1',
    });
    const res = await app.inject({
      method: 'POST',
      url: `/api/public/v0/users/${user.id}/password-reset`,
      headers: { authorization: `ApiKey ${ownerKeyOf()}` },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ emailed: true, user: { id: user.id, email } });
    expect(res.json()).not.toHaveProperty('link');
    const mail = await waitFor(() => receiver.inbox.find((m) => m.to.includes(email)));
    expect(mail.text).toContain('Subject: Reset your Casebook password');
    const token = linkIn(mail, 'reset-password')!.split('/').pop()!;
    const rows = await t.db
      .selectFrom('password_resets')
      .select('token_hash')
      .where('user_id', '=', user.id)
      .execute();
    expect(rows.map((r) => r.token_hash)).toEqual([sha256(token)]);
  });

  it('mails a reset link to the stored address of an active account, and nothing for an unknown one', async () => {
    const email = uniqueEmail('Resetter');
    const user = await createUser(t.db, t.tenantId, {
      email,
      name: 'R',
      role: 'user',
      password: 'long enough 1',
    });
    const before = receiver.inbox.length;
    const ask = (e: string) =>
      app.inject({ method: 'POST', url: '/api/auth/password-reset/request', payload: { email: e } });
    const unknown = await ask(uniqueEmail('nobody'));
    const known = await ask(email.toUpperCase());
    expect(known.statusCode).toBe(200);
    expect(unknown.json()).toEqual(known.json());
    const mail = await waitFor(() => receiver.inbox.slice(before).find((m) => m.to.includes(email)));
    expect(receiver.inbox.length - before).toBe(1);
    expect(mail.text).toContain('Subject: Reset your Casebook password');
    const token = linkIn(mail, 'reset-password')!.split('/').pop()!;
    const rows = await t.db
      .selectFrom('password_resets')
      .select('token_hash')
      .where('user_id', '=', user.id)
      .execute();
    expect(rows.map((r) => r.token_hash)).toEqual([sha256(token)]);
    // The mailed link sets the new password.
    const reset = await app.inject({
      method: 'POST',
      url: '/api/auth/password-reset',
      payload: { token, password: 'a new password 2' },
    });
    expect(reset.statusCode).toBe(200);
    const login = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: 'a new password 2' },
    });
    expect(login.statusCode).toBe(200);
  });

  it('mails at most 3 reset links an hour to one account, answering every request the same', async () => {
    const email = uniqueEmail('bombed');
    await createUser(t.db, t.tenantId, { email, name: 'B', role: 'user', password: 'long enough 1' });
    const answers: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/auth/password-reset/request',
        payload: { email },
        remoteAddress: `10.88.0.${i}`,
      });
      expect(res.statusCode).toBe(200);
      answers.push(res.json());
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    await waitFor(() => (receiver.inbox.filter((m) => m.to.includes(email)).length >= 3 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.inbox.filter((m) => m.to.includes(email))).toHaveLength(3);
  });
});

describe('mail settings', () => {
  it('reads CASEBOOK_SMTP_URL and CASEBOOK_MAIL_FROM, with a sender on the public host by default', () => {
    const config = loadConfig({
      CASEBOOK_SMTP_URL: 'smtps://user:pass@mail.example.com:465',
      CASEBOOK_PUBLIC_URL: 'https://casebook.example.com',
    });
    expect(config.smtpUrl).toBe('smtps://user:pass@mail.example.com:465');
    expect(config.mailFrom).toBe('Casebook <casebook@casebook.example.com>');
    expect(loadConfig({}).smtpUrl).toBeUndefined();
    expect(loadConfig({ CASEBOOK_MAIL_FROM: 'qa@example.com' }).mailFrom).toBe('qa@example.com');
  });

  it('refuses a mail URL that is not smtp(s), without printing its password', () => {
    expect(() => loadConfig({ CASEBOOK_SMTP_URL: 'http://user:secret@mail.example.com' })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig({ CASEBOOK_SMTP_URL: 'http://user:secret@mail.example.com' })).toThrow(
      /CASEBOOK_SMTP_URL must be smtp:\/\/.*"http:\/\/\*\*\*\*@mail\.example\.com"/,
    );
    expect(() => loadConfig({ CASEBOOK_MAIL_FROM: 'not an address' })).toThrow(/CASEBOOK_MAIL_FROM/);
  });
});
