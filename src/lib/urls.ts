/** True for an absolute http:// or https:// URL (links, requirement and tracker URLs). */
export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The origin of an absolute URL (scheme, host and port as the URL standard normalises them: the host in lower case,
 * a default port dropped), or undefined when it is not one. Credentials bound to an address (a webhook's secret, a
 * tracker's token) follow the address only within its origin (docs/api-decisions.md#credentials-and-a-changed-address).
 */
export function originOf(value: string): string | undefined {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * D1: in multi-tenant mode a tenant with a host name lives at that host, with the scheme and port of `base` (the
 * service's address, which the app serves at its root); a tenant without one lives at `base`.
 */
export function onTenantHost(base: string, host: string | null): string {
  if (!host) return base;
  const url = new URL(base);
  url.hostname = host;
  return url.origin;
}
