import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../test/helpers/receiver.js';
import { sendOutbound } from './outbound-http.js';
import { isForbiddenAddress, OutboundRefused, outboundGuard, type LookupFn } from './ssrf.js';

/** A name lookup that answers from a table: no test asks a real resolver. */
const stubLookup =
  (table: Record<string, string[]>, asked: string[] = []): LookupFn =>
  (hostname, _options, callback) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses)
      return callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };

describe('SSRF guard', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());
  const port = () => new URL(receiver.url).port;
  const send = (guard: ReturnType<typeof outboundGuard>, url: string) =>
    sendOutbound(guard, { url, headers: {}, body: '{}' });

  it('classifies loopback, private, link-local, shared, metadata, multicast and mapped addresses as forbidden; public ones not', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.100.100.200',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a00:1',
      'not-an-ip',
    ])
      expect(isForbiddenAddress(a), a).toBe(true);
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(isForbiddenAddress(a), a).toBe(false);
  });

  it('refuses a name that resolves to a private or metadata address, before any connection', async () => {
    const asked: string[] = [];
    const guard = outboundGuard({
      allowPrivate: false,
      allow: [],
      lookup: stubLookup(
        {
          'hooks.example.com': ['10.0.0.7'],
          'meta.example.com': ['169.254.169.254'],
          'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
          'rebind.example.com': ['127.0.0.1'],
        },
        asked,
      ),
    });
    for (const host of ['hooks.example.com', 'meta.example.com', 'mixed.example.com']) {
      await expect(send(guard, `https://${host}/hook`)).rejects.toBeInstanceOf(OutboundRefused);
    }
    // The check is on the resolved address at send time: a name that passed validation and now resolves
    // to loopback (DNS rebinding) is refused too, and the local receiver hears nothing.
    await expect(send(guard, `http://rebind.example.com:${port()}/hook`)).rejects.toThrow(
      /refused: rebind.example.com resolves to 127.0.0.1/,
    );
    expect(asked).toEqual([
      'hooks.example.com',
      'meta.example.com',
      'mixed.example.com',
      'rebind.example.com',
    ]);
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses literal private addresses without a lookup', async () => {
    const guard = outboundGuard({ allowPrivate: false, allow: [], lookup: stubLookup({}) });
    for (const url of [
      'https://169.254.169.254/latest/meta-data',
      `http://127.0.0.1:${port()}/`,
      'https://[::1]/',
      'https://[::ffff:7f00:1]/',
    ])
      await expect(send(guard, url)).rejects.toBeInstanceOf(OutboundRefused);
    expect(receiver.requests).toHaveLength(0);
  });

  it('lets through what CASEBOOK_OUTBOUND_ALLOW lists (a host name or a network), and everything with CASEBOOK_WEBHOOK_ALLOW_PRIVATE', async () => {
    const lookup = stubLookup({ 'tracker.internal': ['127.0.0.1'], 'other.internal': ['127.0.0.1'] });
    const byName = outboundGuard({ allowPrivate: false, allow: ['tracker.internal'], lookup });
    expect((await send(byName, `http://tracker.internal:${port()}/a`)).status).toBe(200);
    await expect(send(byName, `http://other.internal:${port()}/b`)).rejects.toBeInstanceOf(OutboundRefused);
    const byNetwork = outboundGuard({ allowPrivate: false, allow: ['127.0.0.0/8'], lookup });
    expect((await send(byNetwork, `http://other.internal:${port()}/c`)).status).toBe(200);
    const open = outboundGuard({ allowPrivate: true, allow: [], lookup });
    expect((await send(open, `http://other.internal:${port()}/d`)).status).toBe(200);
    expect(receiver.requests.map((r) => r.url)).toEqual(['/a', '/c', '/d']);
  });

  it('does not follow redirects: a 3xx is the answer', async () => {
    receiver.respond = () => ({ status: 302, headers: { location: 'http://169.254.169.254/' } });
    const guard = outboundGuard({ allowPrivate: true, allow: [] });
    const res = await send(guard, `${receiver.url}/redirect`);
    expect(res.status).toBe(302);
    expect(receiver.requests.at(-1)!.url).toBe('/redirect');
    receiver.respond = () => ({ status: 200 });
  });

  it('gives up after the timeout', async () => {
    receiver.respond = () => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 500));
    const guard = outboundGuard({ allowPrivate: true, allow: [] });
    await expect(
      sendOutbound(guard, { url: `${receiver.url}/slow`, headers: {}, body: '', timeoutMs: 50 }),
    ).rejects.toThrow(/timed out after 50 ms/);
    receiver.respond = () => ({ status: 200 });
  });
});
