import dns from 'node:dns';
import net from 'node:net';

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
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  forbidden.addSubnet(net4, prefix, 'ipv4');
// IPv6
for (const [net6, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64: reaches IPv4 addresses, private ones included
  ['100::', 64], // discard
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local (AWS metadata fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  forbidden.addSubnet(net6, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:10.0.0.1), else undefined. */
function mappedIpv4(address: string): string | undefined {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return m[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True when an IP address is one the guard refuses by default. */
export function isForbiddenAddress(address: string): boolean {
  const v4 = mappedIpv4(address);
  if (v4) return forbidden.check(v4, 'ipv4');
  const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : undefined;
  if (!family) return true;
  return forbidden.check(address, family);
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
  const addressAllowed = (address: string): boolean => {
    if (policy.allowPrivate || !isForbiddenAddress(address)) return true;
    const v4 = mappedIpv4(address);
    if (v4) return networks.check(v4, 'ipv4');
    return networks.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4');
  };
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
    return (
      hostAllowed(host) || (net.isIP(host) !== 0 && networks.check(host, net.isIPv6(host) ? 'ipv6' : 'ipv4'))
    );
  };

  return { lookup, checkUrl, hostAllowed, addressAllowed, httpAllowed };
}

export type OutboundGuard = ReturnType<typeof outboundGuard>;
