import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import type { Db } from './db/create-db.js';
import { resealAll, type SealedKind } from './db/sealed-values.js';
import { AppError } from './errors.js';
import { open, seal } from './lib/secret-box.js';
import { resealTotpSecret } from './modules/auth/two-factor.service.js';
import { decryptCredential, encryptCredential } from './modules/integrations/credentials.js';
import { resealWebhookValue } from './modules/webhooks/webhooks.service.js';
import { resealOidcSecret } from './modules/oidc/oidc-providers.service.js';
import { CHECK_PURPOSE, SECRET_KEY_FILE, verifySecretKey, type SecretKey } from './secret-key.js';

/** How each kind of sealed value is opened with the old key and sealed with the new one. */
const RESEAL: Record<SealedKind, (oldKey: string, newKey: string, sealed: string) => string> = {
  integrationToken: (o, n, v) => encryptCredential(n, decryptCredential(o, v)),
  webhookSecret: resealWebhookValue,
  webhookHeaders: resealWebhookValue,
  twoFactorSecret: resealTotpSecret,
  oidcClientSecret: resealOidcSecret,
  secretKeyCheck: (o, n, v) => seal(open(v, o, CHECK_PURPOSE), n, CHECK_PURPOSE),
};

export interface Rotation {
  resealed: Record<SealedKind, number>;
  /** Where the new key is. */
  keyFile: string;
  /** The old key file, kept until every instance runs with the new key (source `file`). */
  previousKeyFile?: string;
  next: string[];
}

/** The key in use now: CASEBOOK_SECRET_KEY, or the data directory's key file (never generated here). */
function currentKey(config: Config): SecretKey {
  if (config.secretKey !== '') return { key: config.secretKey, source: 'env', created: false };
  const file = path.join(config.dataDir, SECRET_KEY_FILE);
  if (!fs.existsSync(file))
    throw new AppError(
      'NOT_FOUND',
      `no secret key: CASEBOOK_SECRET_KEY is not set and ${file} does not exist`,
    );
  return { key: fs.readFileSync(file, 'utf8').trim(), source: 'file', file, created: false };
}

/**
 * `casebook secret-key rotate`: every value sealed with the current key is sealed again under a new, generated
 * one in one transaction (all or nothing). The new key is written to a file first (0600), so it is never only in
 * memory; then the database; then, for a key file, the file is swapped (the old one kept as `.previous`).
 */
export async function rotateSecretKey(db: Db, config: Config): Promise<Rotation> {
  const old = currentKey(config);
  // A key that does not open the database's secrets is refused here as at a start.
  await verifySecretKey(db, old);
  const fresh = randomBytes(32).toString('base64url');
  fs.mkdirSync(config.dataDir, { recursive: true });
  const keyFile = path.join(config.dataDir, `${SECRET_KEY_FILE}.new`);
  if (fs.existsSync(keyFile))
    throw new AppError(
      'CONFLICT',
      `${keyFile} exists (an earlier rotation?): if the service runs with it, it is the key; otherwise remove it and rotate again`,
    );
  fs.writeFileSync(keyFile, `${fresh}\n`, { mode: 0o600, flag: 'wx' });
  let resealed: Record<SealedKind, number>;
  try {
    resealed = await db
      .transaction()
      .execute((trx) => resealAll(trx, (kind, sealed) => RESEAL[kind](old.key, fresh, sealed)));
  } catch (err) {
    fs.rmSync(keyFile, { force: true });
    throw err;
  }
  if (old.source === 'file' && old.file) {
    const previousKeyFile = `${old.file}.previous`;
    fs.renameSync(old.file, previousKeyFile);
    fs.renameSync(keyFile, old.file);
    return {
      resealed,
      keyFile: old.file,
      previousKeyFile,
      next: [
        `${old.file} now holds the new key (the old one is in ${previousKeyFile}).`,
        'Restart every instance of this installation now; instances on other machines need this file too.',
        `Back the new key up apart from the database backups, then delete ${previousKeyFile}.`,
      ],
    };
  }
  return {
    resealed,
    keyFile,
    next: [
      `${keyFile} holds the new key; the database's secrets are sealed with it from now on.`,
      'On every instance set CASEBOOK_SECRET_KEY to it (or CASEBOOK_SECRET_KEY_FILE to a file holding it), then restart them all:',
      'an instance still on the old key refuses to start, and a running one cannot open the secrets.',
      `Back the new key up apart from the database backups, then delete ${keyFile}.`,
    ],
  };
}
