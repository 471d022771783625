// oidc-provider 9 ships no types; this is the part the OIDC sign-in tests use (test/helpers/oidc-idp.ts).
declare module 'oidc-provider' {
  export interface Account {
    accountId: string;
    claims: (use: string, scope: string) => Promise<Record<string, unknown>> | Record<string, unknown>;
  }
  export interface Configuration {
    clients?: Record<string, unknown>[];
    findAccount?: (ctx: unknown, id: string) => Promise<Account | undefined> | Account | undefined;
    claims?: Record<string, string[]>;
    scopes?: string[];
    features?: Record<string, unknown>;
    cookies?: Record<string, unknown>;
    pkce?: Record<string, unknown>;
    [key: string]: unknown;
  }
  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
