import net from 'node:net';

/** The eight 16-bit groups of an IPv6 address (a zone index dropped), or undefined when it is none. */
export function ipv6Groups(address: string): number[] | undefined {
  const plain = address.replace(/%.*$/, '');
  if (!net.isIPv6(plain)) return undefined;
  let text = plain.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (p: string | undefined) => (p ? p.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  const groups = [...left, ...fill, ...right];
  return groups.length === 8 ? groups : undefined;
}

/**
 * The key a per-address throttle counts a request's address under. One person holds a single IPv4 address but
 * usually a whole IPv6 /64 (a home or a phone gets one, and picks fresh addresses in it at will), so:
 * IPv4 as it is; IPv4-mapped IPv6 (`::ffff:1.2.3.4`, as a dual-stack socket reports IPv4) as that IPv4;
 * any other IPv6 as its /64 prefix in the canonical form (`2001:db8:1:2::/64`). Anything else (no address at
 * all, as a test may give) as it is.
 */
export function addressKey(address: string): string {
  if (net.isIPv4(address)) return address;
  const g = ipv6Groups(address);
  if (!g) return address;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    return `${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`;
  }
  // The WHATWG URL parser writes an IPv6 address in its canonical form (RFC 5952: lower case, longest zero run ::).
  const prefix = new URL(
    `http://[${g
      .slice(0, 4)
      .map((x) => x.toString(16))
      .join(':')}::]`,
  ).hostname;
  return `${prefix.slice(1, -1)}/64`;
}
