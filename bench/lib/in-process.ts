import type { FastifyInstance } from 'fastify';
import type { Actor } from '../../src/auth/actor.js';
import { firstStart } from '../../src/bootstrap.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Db } from '../../src/db/create-db.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import { DEFAULT_TENANT_ID } from '../../src/modules/tenants/tenants.service.js';
import { getUserByEmail } from '../../src/modules/users/users.service.js';

/*
 * What the in-process benchmarks (an app built in the bench's own process, asked with inject or over a port) share:
 * the settings they start from and the owner an empty database gets on its first start.
 */

const OWNER_EMAIL = 'owner@example.com';

/** Silent, files in `dataDir`, one known owner and secret key; `extra` adds or overrides settings. */
export function benchConfig(dataDir: string, extra: Record<string, string> = {}): Config {
  return loadConfig({
    CASEBOOK_LOG_LEVEL: 'silent',
    CASEBOOK_DATA_DIR: dataDir,
    CASEBOOK_OWNER_EMAIL: OWNER_EMAIL,
    CASEBOOK_OWNER_PASSWORD: 'owner-password',
    CASEBOOK_PUBLIC_URL: 'http://casebook.bench',
    CASEBOOK_SECRET_KEY: 'bench-secret-key-0123456789',
    ...extra,
  });
}

/**
 * Migrates an empty database and makes its owner, as `npm start` does the first time: the owner's API key, and
 * the actor the services take when a bench writes through them directly rather than through the API.
 */
export async function firstStartOf(db: Db, config: Config): Promise<{ apiKey: string; actor: Actor }> {
  await migrateToLatest(db);
  const first = await firstStart(db, config);
  if (!first) throw new Error('expected an empty database');
  const owner = await getUserByEmail(db, DEFAULT_TENANT_ID, OWNER_EMAIL);
  return {
    apiKey: first.apiKey,
    actor: {
      tenantId: DEFAULT_TENANT_ID,
      userId: owner.id,
      role: 'owner',
      apiKeyId: first.apiKey.split('.')[1],
      via: 'key',
      ip: '127.0.0.1',
      userAgent: 'bench',
    },
  };
}

/**
 * Calls the public API of an app built in process with the owner's key (`inject`, no port), throwing on any answer
 * of 300 or above with the start of its body, so a bench never measures refusals.
 */
export const apiCaller =
  (app: FastifyInstance, apiKey: string) => async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await app.inject({
      method,
      url: `/api/public/v0${url}`,
      headers: { authorization: `ApiKey ${apiKey}`, 'content-type': 'application/json' },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.statusCode >= 300)
      throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res;
  };
