import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID Connect provider (panva's `oidc-provider`) in this process on a free port of 127.0.0.1, for the
 * sign-in tests: the test names its users (claims), its client, and signs a person in through the provider's own
 * development login form, following every redirect by hand with a cookie jar, as a browser would.
 */

export interface IdpUser {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface IdpClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface TestIdp {
  issuer: string;
  /** People by login (their `sub`); changeable while the provider runs. */
  users: Map<string, IdpUser>;
  /** Sets the client (once the Casebook provider, and so its redirect URI, exists). */
  configure: (clients: IdpClient[]) => void;
  /**
   * Follows `url` (the provider's authorization URL) through the login and consent forms as `login`, and answers
   * where the provider sends the browser back (the redirect URI with code, state and iss).
   */
  signIn: (url: string, login: string) => Promise<URL>;
  close: () => Promise<void>;
}

export async function startIdp(): Promise<TestIdp> {
  let handler: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | undefined;
  const server = http.createServer((req, res) => {
    if (!handler) {
      res.writeHead(503).end('not configured');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const users = new Map<string, IdpUser>();

  const configure = (clients: IdpClient[]) => {
    const provider = new Provider(issuer, {
      clients: clients.map((c) => ({ ...c, grant_types: ['authorization_code'], response_types: ['code'] })),
      findAccount: (_ctx: unknown, id: string) => ({
        accountId: id,
        claims: () => ({ sub: id, ...users.get(id) }),
      }),
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['name'],
        groups: ['groups'],
      },
      scopes: ['openid', 'email', 'profile', 'groups'],
      features: { devInteractions: { enabled: true } },
      cookies: { keys: ['casebook-test-idp-cookie-key'] },
      pkce: { required: () => true },
      // Set, so the provider does not log a notice for each default it would use.
      ttl: {
        Session: 600,
        Grant: 600,
        AccessToken: 600,
        IdToken: 600,
        Interaction: 600,
        AuthorizationCode: 60,
      },
    });
    // The provider logs its own complaints about development settings; tests want them quiet.
    provider.on('server_error', () => {});
    handler = provider.callback();
  };

  const signIn = async (start: string, login: string): Promise<URL> => {
    const jar = new Map<string, string>();
    const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const remember = (res: Response) => {
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair!.indexOf('=');
        const name = pair!.slice(0, at).trim();
        const value = pair!.slice(at + 1).trim();
        if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
        else jar.set(name, value);
      }
    };
    let url = new URL(start);
    let body: URLSearchParams | undefined;
    for (let hop = 0; hop < 20; hop++) {
      if (url.origin !== issuer) return url;
      const res = await fetch(url, {
        method: body ? 'POST' : 'GET',
        headers: {
          cookie: cookieHeader(),
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body,
        redirect: 'manual',
      });
      remember(res);
      body = undefined;
      const location = res.headers.get('location');
      if (location) {
        url = new URL(location, url);
        continue;
      }
      const html = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      if (res.status !== 200 || !action)
        throw new Error(`the provider answered ${res.status}: ${html.slice(0, 500)}`);
      const form = new URLSearchParams();
      for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
        form.set(m[1]!, m[2]!);
      if (html.includes('name="login"')) {
        form.set('login', login);
        form.set('password', 'any password');
      }
      url = new URL(action.replace(/&amp;/g, '&'), url);
      body = form;
    }
    throw new Error('too many redirects at the provider');
  };

  return {
    issuer,
    users,
    configure,
    signIn,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
