import dns from 'node:dns';
import net from 'node:net';
import { ipv6Groups } from './ip.js';

/**
 * SSRF guard for every outbound request (webhooks, tracker calls): loopback, private, link-local,
 * shared, multicast, reserved and cloud-metadata addresses are refused, checked on the address the name
 * RESOLVED to at connection time (a lookup hook in the HTTP agent), so a name that resolves to 10.0.0.1, or one
 * re-pointed after a check (DNS rebinding), cannot reach the internal network. Configuration may allow them:
 * CASEBOOK_WEBHOOK_ALLOW_PRIVATE (everything) or CASEBOOK_OUTBOUND_ALLOW (host names and networks, for
 * self-hosted trackers on an internal network).
 */

const forbidden = new net.BlockList();
// IPv4
for (const [net4, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (carrier NAT; Alibaba's metadata 100.100.100.200)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  forbidden.addSubnet(net4, prefix, 'ipv4');
/**
 * IPv6: only global unicast (2000::/3) is reachable, less the special ranges inside it. Forms that carry an IPv4
 * address (mapped, compatible, SIIT, NAT64 well-known prefix, 6to4) are checked as that IPv4 address, so
 * `::ffff:127.0.0.1`, `64:ff9b::a00:1` and `2002:7f00:1::` are loopback and private like the addresses they reach.
 */
const special6 = new net.BlockList();
for (const [net6, prefix] of [
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32 (reaches IPv4 through relays), benchmarking, ORCHID
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing identifiers
] as const)
  special6.addSubnet(net6, prefix, 'ipv6');

const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 address an IPv6 address carries and reaches: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible
 * (::a.b.c.d, so also :: and ::1), SIIT (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::);
 * else undefined. An IPv4 address is answered as it is.
 */
export function embeddedIpv4(address: string): string | undefined {
  if (net.isIPv4(address)) return address;
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && (g[5] === 0 || g[5] === 0xffff)) return quad(g[6], g[7]); // compatible, mapped
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return quad(g[6], g[7]); // SIIT
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return quad(g[6], g[7]); // NAT64 well-known prefix
  if (g[0] === 0x2002) return quad(g[1], g[2]); // 6to4
  return undefined;
}

/** True when an IP address is one the guard refuses by default: anything but public IPv4 and global unicast IPv6. */
export function isForbiddenAddress(address: string): boolean {
  const v4 = embeddedIpv4(address);
  if (v4) return forbidden.check(v4, 'ipv4');
  const g = ipv6Groups(address);
  if (!g) return true;
  // Not global unicast: unique local, link- and site-local, multicast, and the rest outside 2000::/3 (the local-use
  // NAT64 prefix 64:ff9b:1::/48 among them, whose IPv4 part sits where its operator chose).
  if (g[0] >> 13 !== 1) return true;
  return special6.check(g.map((x) => x.toString(16)).join(':'), 'ipv6');
}

export type LookupFn = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

export interface OutboundPolicy {
  /** CASEBOOK_WEBHOOK_ALLOW_PRIVATE: every address allowed. */
  allowPrivate: boolean;
  /** CASEBOOK_OUTBOUND_ALLOW: host names (exact, or `.example.com` for a domain) and addresses / CIDR networks. */
  allow: string[];
  /** Name resolution; dns.lookup unless a test stubs it. */
  lookup?: LookupFn;
}

export class OutboundRefused extends Error {
  readonly code = 'OUTBOUND_REFUSED';
}

function allowedNetworks(allow: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const entry of allow) {
    const [addr, prefix] = entry.split('/');
    const family = net.isIPv4(addr) ? 'ipv4' : net.isIPv6(addr) ? 'ipv6' : undefined;
    if (!family) continue;
    if (prefix === undefined) list.addAddress(addr, family);
    else list.addSubnet(addr, Number(prefix), family);
  }
  return list;
}

/** Whether an allow-list entry is a host name or domain (as opposed to an address or network). */
const isHostEntry = (entry: string) => !net.isIP(entry.split('/')[0]);

/** Validates CASEBOOK_OUTBOUND_ALLOW entries; answers the problem, or undefined. */
export function checkAllowEntry(entry: string): string | undefined {
  const [addr, prefix, extra] = entry.split('/');
  if (extra !== undefined) return `"${entry}" is not a host name, address or network`;
  if (net.isIP(addr)) {
    if (prefix === undefined) return undefined;
    const max = net.isIPv4(addr) ? 32 : 128;
    return /^\d+$/.test(prefix) && Number(prefix) <= max ? undefined : `"${entry}" has an invalid prefix`;
  }
  return prefix === undefined && /^\.?[a-z0-9.-]+$/i.test(addr)
    ? undefined
    : `"${entry}" is not a host name, address or network`;
}

/** The guard of one policy: `hostAllowed` for names on the allow-list, `addressAllowed` for resolved addresses. */
export function outboundGuard(policy: OutboundPolicy) {
  const networks = allowedNetworks(policy.allow);
  const hosts = policy.allow.filter(isHostEntry).map((h) => h.toLowerCase());
  const hostAllowed = (hostname: string): boolean => {
    const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
    return hosts.some((e) => (e.startsWith('.') ? h.endsWith(e) || h === e.slice(1) : h === e));
  };
  /** On CASEBOOK_OUTBOUND_ALLOW's networks: the address itself, or the IPv4 address it carries. */
  const listed = (address: string): boolean => {
    const v4 = embeddedIpv4(address);
    if (v4 && networks.check(v4, 'ipv4')) return true;
    return net.isIPv6(address) && networks.check(address, 'ipv6');
  };
  const addressAllowed = (address: string): boolean =>
    policy.allowPrivate || !isForbiddenAddress(address) || listed(address);
  const baseLookup: LookupFn = policy.lookup ?? (dns.lookup as unknown as LookupFn);

  /**
   * A `lookup` for http(s).request: resolves, then refuses when any resolved address is forbidden (a name with
   * one private address among public ones could be steered to it), unless the name itself is allowed.
   */
  const lookup = (
    hostname: string,
    options: dns.LookupOptions,
    callback: (
      err: NodeJS.ErrnoException | null,
      address: string | dns.LookupAddress[],
      family?: number,
    ) => void,
  ): void => {
    baseLookup(hostname, { ...options, all: true } as dns.LookupAllOptions, (err, addresses) => {
      if (err) return callback(err, '', 0);
      if (!hostAllowed(hostname)) {
        const bad = addresses.find((a) => !addressAllowed(a.address));
        if (bad || addresses.length === 0) {
          return callback(
            new OutboundRefused(
              `refused: ${hostname} resolves to ${bad?.address ?? 'nothing'}, a private or reserved address (CASEBOOK_OUTBOUND_ALLOW or CASEBOOK_WEBHOOK_ALLOW_PRIVATE allow it)`,
            ),
            '',
            0,
          );
        }
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };

  /** Checks a URL before connecting: an IP literal is never looked up, so it is checked here. */
  const checkUrl = (url: URL): void => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host) && !hostAllowed(host) && !addressAllowed(host)) {
      throw new OutboundRefused(
        `refused: ${host} is a private or reserved address (CASEBOOK_OUTBOUND_ALLOW or CASEBOOK_WEBHOOK_ALLOW_PRIVATE allow it)`,
      );
    }
  };

  /** Plain http is for internal receivers only: when private addresses are allowed or the host is listed. */
  const httpAllowed = (url: URL): boolean => {
    if (policy.allowPrivate) return true;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return hostAllowed(host) || (net.isIP(host) !== 0 && listed(host));
  };

  return { lookup, checkUrl, hostAllowed, addressAllowed, httpAllowed };
}

export type OutboundGuard = ReturnType<typeof outboundGuard>;
