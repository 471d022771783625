import { expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { decryptCredential } from './credentials.js';

/** A tracker token is given for one tracker: it follows the integration's address only within its origin. */
describeEachDb('integrations: the token follows the tracker address only within its origin', (t) => {
  let n = 0;
  async function create(body: Record<string, unknown>) {
    const res = await t.post('/integration', { name: `Tracker ${++n}`, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }
  const stored = async (id: string) => {
    const row = await t.db
      .selectFrom('integrations')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return {
      config: JSON.parse(row.config),
      token: row.token_enc === null ? null : decryptCredential(t.config.secretKey, row.token_enc),
    };
  };
  const updates = async () =>
    (await t.db.selectFrom('audit_events').select('id').where('action', '=', 'integration.updated').execute())
      .length;

  it('refuses to move a tracker_b site to another origin without the token, names it, and changes nothing', async () => {
    const id = await create({
      type: 'tracker_b',
      config: { url: 'https://acme.tracker-b.example.com', email: 'bot@acme.test' },
      token: 'tb-token-1',
    });
    const before = await updates();
    for (const url of [
      'https://evil.example.net',
      'http://acme.tracker-b.example.com',
      'https://acme.tracker-b.example.com:8443',
    ]) {
      const res = await t.patch(`/integration/${id}`, { config: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body).toEqual({
        code: 'VALIDATION_FAILED',
        message: `config.url moves the tracker to another origin (https://acme.tracker-b.example.com → ${new URL(url).origin}): send the token again (the same or a new one); it is not sent to another origin unasked`,
        details: [{ path: '/token', message: expect.stringContaining('send the token again') }],
      });
    }
    expect(await stored(id)).toEqual({
      config: { url: 'https://acme.tracker-b.example.com', email: 'bot@acme.test' },
      token: 'tb-token-1',
    });
    expect(await updates()).toBe(before);
    // With the token in the same request: moved, and the new token is the one kept.
    const moved = await t.patch(`/integration/${id}`, {
      config: { url: 'https://other.tracker-b.example.com' },
      token: 'tb-token-2',
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(await stored(id)).toMatchObject({
      config: { url: 'https://other.tracker-b.example.com' },
      token: 'tb-token-2',
    });
  });

  it('keeps the token for a change within the origin (a path, the case of the host, a default port)', async () => {
    const id = await create({
      type: 'tracker_b',
      config: { url: 'https://acme.tracker-b.example.com', email: 'bot@acme.test' },
      token: 'tb-token-kept',
    });
    for (const url of [
      'https://acme.tracker-b.example.com/jira',
      'https://ACME.tracker-b.example.com/',
      'https://acme.tracker-b.example.com:443/x',
    ]) {
      const res = await t.patch(`/integration/${id}`, { config: { url } });
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body).toMatchObject({ config: { url }, hasToken: true });
    }
    expect((await stored(id)).token).toBe('tb-token-kept');
  });

  it('treats an apiUrl set for the first time as a move away from the hosted service; the same request may clear or resend the token', async () => {
    const a = await create({ type: 'tracker_a', config: { account: 'acme' }, token: 'ghp_first' });
    const refused = await t.patch(`/integration/${a}`, {
      config: { apiUrl: 'https://git.example.org/api/v3' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      'config.apiUrl moves the tracker to another origin (https://api.github.com → https://git.example.org): send the token again (the same or a new one, or null to remove it); it is not sent to another origin unasked',
    );
    expect(await stored(a)).toEqual({ config: { account: 'acme' }, token: 'ghp_first' });
    // The hosted service's own address is no move.
    const same = await t.patch(`/integration/${a}`, { config: { apiUrl: 'https://API.github.com/' } });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    const cleared = await t.patch(`/integration/${a}`, {
      config: { apiUrl: 'https://git.example.org/api/v3' },
      token: null,
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(await stored(a)).toEqual({
      config: { account: 'acme', apiUrl: 'https://git.example.org/api/v3' },
      token: null,
    });

    const c = await create({
      type: 'tracker_c',
      config: { organizationKey: 'ENG', apiUrl: 'https://linear.example.org' },
      token: 'lin_first',
    });
    expect(
      (await t.patch(`/integration/${c}`, { config: { apiUrl: 'https://other.example.org' } })).status,
    ).toBe(400);
    const resent = await t.patch(`/integration/${c}`, {
      config: { apiUrl: 'https://other.example.org' },
      token: 'lin_first',
    });
    expect(resent.status, JSON.stringify(resent.body)).toBe(200);
    expect(await stored(c)).toMatchObject({ token: 'lin_first' });
  });

  it('lets an integration without a credential move freely (a custom one, a tracker without a token)', async () => {
    const custom = await create({
      type: 'custom',
      config: { newUrl: 'https://issues.example.com/new', viewUrl: 'https://issues.example.com/{id}' },
    });
    const res = await t.patch(`/integration/${custom}`, {
      config: { newUrl: 'https://other.example.net/new', viewUrl: 'https://other.example.net/{id}' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const bare = await create({ type: 'tracker_c', config: { organizationKey: 'OPS' } });
    const moved = await t.patch(`/integration/${bare}`, { config: { apiUrl: 'https://linear.example.org' } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  });
});
