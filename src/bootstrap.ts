import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import type { Db } from './db/create-db.js';
import { migrateToLatest } from './db/migrator.js';
import { newSecret } from './lib/ids.js';
import { createApiKey } from './modules/api-keys/api-keys.service.js';
import { DEFAULT_TENANT_ID, ensureDefaultTenant } from './modules/tenants/tenants.service.js';
import { countUsers, createUser } from './modules/users/users.service.js';
import { resolveSecretKey, secretKeyNotice, verifySecretKey } from './secret-key.js';

export interface FirstStartResult {
  email: string;
  /** Present only when the password was generated (it is never shown again). */
  generatedPassword?: string;
  apiKey: string;
}

/**
 * On an empty database: creates the default tenant and its owner (from CASEBOOK_OWNER_EMAIL /
 * CASEBOOK_OWNER_PASSWORD when set) and a first API key. Returns undefined when the tenant already has users.
 */
export async function firstStart(db: Db, config: Config): Promise<FirstStartResult | undefined> {
  try {
    return await firstStartOnce(db, config);
  } catch (err) {
    // Several processes starting at once on an empty PostgreSQL database: all but one fail on the unique
    // tenant or owner row (the whole transaction aborts). Once more, they find the winner's owner and do
    // nothing; a real failure fails again and is thrown.
    return firstStartOnce(db, config).catch(() => Promise.reject(err));
  }
}

async function firstStartOnce(db: Db, config: Config): Promise<FirstStartResult | undefined> {
  return db.transaction().execute(async (trx) => {
    await ensureDefaultTenant(trx);
    if ((await countUsers(trx, DEFAULT_TENANT_ID)) > 0) return undefined;
    const email = config.ownerEmail ?? 'owner@casebook.local';
    const generatedPassword = config.ownerPassword ? undefined : newSecret(12);
    const owner = await createUser(
      trx,
      DEFAULT_TENANT_ID,
      { email, name: 'Owner', role: 'owner', password: config.ownerPassword ?? generatedPassword },
      true,
    );
    const { key } = await createApiKey(trx, DEFAULT_TENANT_ID, { userId: owner.id, name: 'first-start' });
    return { email, generatedPassword, apiKey: key };
  });
}

const READY = ' Casebook is ready. This is shown once: keep these credentials safe.';
// The owner exists from now on, so a start that fails to listen (port taken) still shows its credentials once.
const NOT_SERVING =
  ' Casebook did not start (see why below), but it created its owner. This is shown once: keep these safe.';

/** The first start's credentials, in the data directory, readable by the service's user alone (issue 43 §7). */
export const CREDENTIALS_FILE = 'first-start-credentials.txt';

/**
 * Writes the owner's credentials to `<data dir>/first-start-credentials.txt` with mode 0600 and answers its path,
 * or undefined when the directory cannot be written (the banner then shows them, so they are never lost).
 */
export function saveFirstStartCredentials(
  dataDir: string,
  result: FirstStartResult,
  publicUrl: string,
): string | undefined {
  const file = path.join(dataDir, CREDENTIALS_FILE);
  const text = [
    "Casebook's first start created this owner. Sign in, then delete this file.",
    `Open:     ${publicUrl}`,
    `E-mail:   ${result.email}`,
    `Password: ${result.generatedPassword ?? '(from CASEBOOK_OWNER_PASSWORD)'}`,
    `API key:  ${result.apiKey}`,
    '',
  ].join('\n');
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    // A file left by an earlier database goes first: an existing file keeps its mode when written over.
    fs.rmSync(file, { force: true });
    fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
    return file;
  } catch {
    return undefined;
  }
}

export interface BannerOptions {
  headline?: string;
  /** Where the credentials were saved (saveFirstStartCredentials), if they were. */
  file?: string;
  /**
   * Whether the banner goes to a terminal. A container's or a service manager's output is its log, kept and
   * shipped: the password and the key go there only when they were saved nowhere else.
   */
  terminal?: boolean;
}

export function firstStartBanner(
  result: FirstStartResult,
  publicUrl: string,
  extra: string[] = [],
  { headline = READY, file, terminal = true }: BannerOptions = {},
): string {
  const line = '='.repeat(72);
  const secrets = terminal || !file;
  const password = result.generatedPassword ?? '(from CASEBOOK_OWNER_PASSWORD)';
  return [
    line,
    headline,
    `   Open:     ${publicUrl}`,
    `   E-mail:   ${result.email}`,
    ...(secrets
      ? [
          `   Password: ${password}`,
          `   API key:  ${result.apiKey}`,
          `   Try:      curl -H "Authorization: ApiKey ${result.apiKey}" ${publicUrl}/api/public/v0/project`,
        ]
      : result.generatedPassword
        ? [`   Password and API key: in ${file}`]
        : [`   Password: ${password}`, `   API key:  in ${file}`]),
    ...(file ? [`   Saved in: ${file} (readable by this user only; delete it once you have signed in)`] : []),
    ...extra,
    line,
  ].join('\n');
}

export interface PreparedStart {
  /** The configuration with the secret key in it. */
  config: Config;
  /** Set on an empty database: the owner and key just created, for the banner. */
  first?: FirstStartResult;
  /** Where the first start saved the owner's credentials (when it created an owner and could write them). */
  credentialsFile?: string;
  /** Lines about a secret key file just generated (empty otherwise). */
  notice: string[];
}

/**
 * What every start does before serving, once per process group: migrate, settle the secret key (CASEBOOK_SECRET_KEY
 * or the data directory's key file, checked against the database), and on an empty database create the owner.
 * Prints nothing: the banner says "ready", so the caller prints `startMessage` once the server listens. Throws
 * ConfigError when the key does not fit.
 */
export async function prepareStart(db: Db, config: Config): Promise<PreparedStart> {
  const secret = resolveSecretKey(config);
  await migrateToLatest(db);
  await verifySecretKey(db, secret);
  const withKey = { ...config, secretKey: secret.key };
  const first = await firstStart(db, withKey);
  const credentialsFile = first && saveFirstStartCredentials(config.dataDir, first, config.publicUrl);
  return { config: withKey, first, credentialsFile, notice: secretKeyNotice(secret) };
}

/**
 * What a start prints on standard output once it listens (`listening`), or when it could not: the first start's
 * banner (credentials shown once either way) or the secret key notice; undefined when there is nothing to say.
 */
export function startMessage(
  prepared: PreparedStart,
  listening: boolean,
  terminal = Boolean(process.stdout.isTTY),
): string | undefined {
  const { first, notice, config, credentialsFile } = prepared;
  if (first) {
    const headline = listening ? READY : NOT_SERVING;
    return firstStartBanner(first, config.publicUrl, notice, { headline, file: credentialsFile, terminal });
  }
  return notice.length > 0 ? notice.join('\n') : undefined;
}
