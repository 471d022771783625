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

  // Every address form: IPv4, IPv6 global unicast, and the IPv6 forms that embed or route to IPv4 (checked as it).
  const table: [address: string, forbidden: boolean, why: string][] = [
    ['127.0.0.1', true, 'loopback'],
    ['10.1.2.3', true, 'private'],
    ['172.16.0.1', true, 'private'],
    ['192.168.1.1', true, 'private'],
    ['169.254.169.254', true, 'cloud metadata'],
    ['100.100.100.200', true, 'shared address space'],
    ['0.0.0.0', true, 'this network'],
    ['224.0.0.1', true, 'multicast'],
    ['255.255.255.255', true, 'broadcast'],
    ['192.88.99.1', true, '6to4 relay anycast'],
    ['93.184.216.34', false, 'public'],
    ['8.8.8.8', false, 'public'],
    ['::1', true, 'IPv6 loopback'],
    ['::', true, 'unspecified'],
    ['::ffff:127.0.0.1', true, 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', true, 'IPv4-mapped loopback, hex'],
    ['::ffff:a9fe:a9fe', true, 'IPv4-mapped metadata'],
    ['::ffff:8.8.8.8', false, 'IPv4-mapped public'],
    ['::127.0.0.1', true, 'IPv4-compatible loopback'],
    ['::7f00:1', true, 'IPv4-compatible loopback, hex'],
    ['::a00:1', true, 'IPv4-compatible private'],
    ['::ffff:0:7f00:1', true, 'SIIT loopback'],
    ['::ffff:0:10.0.0.1', true, 'SIIT private'],
    ['64:ff9b::a00:1', true, 'NAT64 private'],
    ['64:ff9b::7f00:1', true, 'NAT64 loopback'],
    ['64:ff9b::8.8.8.8', false, 'NAT64 public'],
    ['64:ff9b:1::a00:1', true, 'local-use NAT64'],
    ['64:ff9b:1::808:808', true, 'local-use NAT64, whatever it embeds'],
    ['2002:7f00:1::', true, '6to4 of loopback'],
    ['2002:a9fe:a9fe::1', true, '6to4 of metadata'],
    ['2002:c0a8:101::1', true, '6to4 of private'],
    ['2002:808:808::1', false, '6to4 of public'],
    ['2001::1', true, 'Teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true, 'Teredo'],
    ['2001:db8::1', true, 'documentation'],
    ['3fff::1', true, 'documentation'],
    ['fec0::1', true, 'site-local'],
    ['feff::1', true, 'site-local'],
    ['fc00::1', true, 'unique local'],
    ['fd00:ec2::254', true, 'unique local (cloud metadata)'],
    ['fe80::1', true, 'link-local'],
    ['fe80::1%eth0', true, 'link-local with a zone'],
    ['ff02::1', true, 'multicast'],
    ['100::1', true, 'discard'],
    ['4000::1', true, 'unassigned, outside 2000::/3'],
    ['2606:4700::1111', false, 'global unicast'],
    ['2001:4860:4860::8888', false, 'global unicast'],
    ['2a00:1450:4001:80b::200e', false, 'global unicast'],
    ['not-an-ip', true, 'not an address'],
  ];
  it.each(table)('classifies %s as forbidden: %s (%s)', (address, expected) => {
    expect(isForbiddenAddress(address)).toBe(expected);
  });

  it('checks the IPv4 address an IPv6 form carries against CASEBOOK_OUTBOUND_ALLOW, as the IPv4 address it is', () => {
    const guard = outboundGuard({ allowPrivate: false, allow: ['10.0.0.0/8', 'fd12::/16'] });
    for (const a of [
      '10.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:0:a00:1',
      '64:ff9b::a00:1',
      '2002:a00:1::',
      'fd12::5',
    ])
      expect(guard.addressAllowed(a), a).toBe(true);
    for (const a of [
      '127.0.0.1',
      '::ffff:127.0.0.1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      'fd13::5',
      'fec0::1',
    ])
      expect(guard.addressAllowed(a), a).toBe(false);
    expect(guard.httpAllowed(new URL('http://[64:ff9b::a00:1]/'))).toBe(true);
    expect(guard.httpAllowed(new URL('http://[64:ff9b::7f00:1]/'))).toBe(false);
  });

  it('refuses a name resolving to an IPv6 form of an internal address, and literal ones, before any connection', async () => {
    const lookup = stubLookup({
      'nat64.example.com': ['64:ff9b::7f00:1'],
      'sixtofour.example.com': ['2002:7f00:1::'],
      'compat.example.com': ['::127.0.0.1'],
      'teredo.example.com': ['2001::1'],
      'sitelocal.example.com': ['fec0::1'],
    });
    const guard = outboundGuard({ allowPrivate: false, allow: [], lookup });
    for (const host of ['nat64', 'sixtofour', 'compat', 'teredo', 'sitelocal'])
      await expect(send(guard, `https://${host}.example.com:${port()}/`)).rejects.toBeInstanceOf(
        OutboundRefused,
      );
    for (const literal of [
      '[::127.0.0.1]',
      '[2002:7f00:1::]',
      '[64:ff9b:1::a00:1]',
      '[fec0::1]',
      '[2001::1]',
    ])
      await expect(send(guard, `https://${literal}:${port()}/`)).rejects.toBeInstanceOf(OutboundRefused);
    expect(receiver.requests).toHaveLength(0);
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
