import { afterAll, beforeAll, describe } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { CreateDbOptions, Db } from '../../src/db/create-db.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import { firstStart } from '../../src/bootstrap.js';
import { DEFAULT_TENANT_ID } from '../../src/modules/tenants/tenants.service.js';
import { getUserByEmail } from '../../src/modules/users/users.service.js';
import { databaseTargets, type DatabaseTarget } from './databases.js';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RequestOptions {
  /** API key to send; defaults to the owner's. `null` sends no Authorization header. */
  key?: string | null;
  body?: unknown;
  query?: Record<string, string | number | boolean | Array<string | number>>;
  headers?: Record<string, string>;
}

/** What every HTTP test gets: an app on a fresh database, the owner's key, and request helpers. */
export interface TestEnv {
  dbName: DatabaseTarget['name'];
  app: FastifyInstance;
  db: Db;
  config: Config;
  tenantId: string;
  ownerId: number;
  ownerKey: string;
  request: <T = any>(method: string, url: string, options?: RequestOptions) => Promise<ApiResponse<T>>;
  get: <T = any>(url: string, options?: RequestOptions) => Promise<ApiResponse<T>>;
  post: <T = any>(url: string, body?: unknown, options?: RequestOptions) => Promise<ApiResponse<T>>;
  patch: <T = any>(url: string, body?: unknown, options?: RequestOptions) => Promise<ApiResponse<T>>;
  del: <T = any>(url: string, options?: RequestOptions) => Promise<ApiResponse<T>>;
}

function toQuery(query: RequestOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    for (const item of Array.isArray(v) ? v : [v]) params.append(k, String(item));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

export interface TestAppOptions {
  /** Environment overrides for the app's config (e.g. CASEBOOK_RATE_LIMIT). */
  env?: Record<string, string>;
  /** Options of the database, e.g. a query log to count statements. */
  db?: CreateDbOptions;
  /** Only this database (e.g. settings that need PostgreSQL); the suite is skipped where it is not configured. */
  only?: DatabaseTarget['name'];
  /** The config names the test database (for settings checked against it); otherwise a SQLite default. */
  databaseUrlInConfig?: boolean;
}

/**
 * Runs `fn` once per database target (SQLite always; PostgreSQL when configured), each with a fresh,
 * migrated database holding the default tenant and its owner.
 */
export function describeEachDb(title: string, fn: (t: TestEnv) => void, options: TestAppOptions = {}): void {
  for (const target of databaseTargets().filter((d) => !options.only || d.name === options.only)) {
    describe(`${title} [${target.name}]`, () => {
      const t = { dbName: target.name } as TestEnv;
      let drop: () => Promise<void> = async () => {};
      beforeAll(async () => {
        const created = await target.create(options.db);
        drop = created.drop;
        const config = loadConfig({
          CASEBOOK_LOG_LEVEL: 'silent',
          CASEBOOK_DATA_DIR: `/tmp/casebook-test-${process.pid}`,
          CASEBOOK_OWNER_EMAIL: 'owner@example.com',
          CASEBOOK_OWNER_PASSWORD: 'owner-password',
          CASEBOOK_PUBLIC_URL: 'http://casebook.test',
          CASEBOOK_SECRET_KEY: 'test-secret-key-0123456789',
          // Tests play the proxy: they set X-Forwarded-For to act from several addresses.
          CASEBOOK_TRUST_PROXY: 'true',
          ...(options.databaseUrlInConfig ? { CASEBOOK_DATABASE_URL: created.url } : {}),
          ...options.env,
        });
        await migrateToLatest(created.db);
        const first = await firstStart(created.db, config);
        if (!first) throw new Error('expected an empty database');
        // webRoot null: the API under test is the same whether or not web/dist was built (the web
        // application has its own tests: src/http/web-app.test.ts, test/web/).
        const app = await buildApp({
          config,
          db: created.db,
          webRoot: null,
        });
        const owner = await getUserByEmail(created.db, DEFAULT_TENANT_ID, 'owner@example.com');
        const request = async (method: string, url: string, o: RequestOptions = {}) => {
          const full =
            url.startsWith('/api/') ||
            url.startsWith('/scim/') ||
            url.startsWith('/healthz') ||
            url.startsWith('/readyz') ||
            url.startsWith('/metrics') ||
            url.startsWith('/docs')
              ? url
              : `/api/public/v0${url}`;
          const key = o.key === undefined ? t.ownerKey : o.key;
          const headers: Record<string, string> = { ...o.headers };
          if (key !== null) headers.authorization = `ApiKey ${key}`;
          let payload: string | Buffer | undefined;
          if (o.body !== undefined) {
            headers['content-type'] ??= 'application/json';
            // A Buffer goes as it is (a multipart body with binary files); anything else but text as JSON.
            payload = typeof o.body === 'string' || Buffer.isBuffer(o.body) ? o.body : JSON.stringify(o.body);
          }
          const res = await app.inject({
            method: method as any,
            url: full + toQuery(o.query),
            headers,
            payload,
          });
          let body: any = res.body;
          try {
            body = res.body === '' ? undefined : JSON.parse(res.body);
          } catch {
            // not JSON: tests that care look at `text`.
          }
          return {
            status: res.statusCode,
            body,
            headers: res.headers as ApiResponse['headers'],
            text: res.body,
          };
        };
        Object.assign(t, {
          app,
          db: created.db,
          config,
          tenantId: DEFAULT_TENANT_ID,
          ownerId: owner.id,
          ownerKey: first.apiKey,
          request,
          get: (url: string, o?: RequestOptions) => request('GET', url, o),
          post: (url: string, body?: unknown, o?: RequestOptions) => request('POST', url, { ...o, body }),
          patch: (url: string, body?: unknown, o?: RequestOptions) => request('PATCH', url, { ...o, body }),
          del: (url: string, o?: RequestOptions) => request('DELETE', url, o),
        });
      });
      afterAll(async () => {
        await t.app?.close();
        await drop();
      });
      fn(t);
    });
  }
}
