import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, type Config } from './config.js';
import type { Db } from './db/create-db.js';
import { insertSettingIfAbsent, readSetting } from './db/instance-settings.js';
import { sealedSamples, type SealedSamples } from './db/sealed-values.js';
import { open, seal } from './lib/secret-box.js';
import { openTotpSecret } from './modules/auth/two-factor.service.js';
import { decryptCredential } from './modules/integrations/credentials.js';
import { openWebhookSecrets } from './modules/webhooks/webhooks.service.js';

/**
 * The secret key seals what the service must read back (tracker tokens, TOTP secrets, webhook secrets). Set it with
 * CASEBOOK_SECRET_KEY; without it, the first start generates one into `<data dir>/secret.key` (mode 0600), so that a
 * fresh `npm start` works. A value sealed with the key is kept in the database (the first writer's wins): a process
 * whose key cannot open it refuses to start, before it could seal anything under a key the others do not have.
 * A database without that value yet (new, or sealed by a version before it) gets it only from a key that opens the
 * secrets already stored there: an upgrade started without its old key refuses too instead of starting on a new one.
 */

export const SECRET_KEY_FILE = 'secret.key';

export interface SecretKey {
  key: string;
  /** Where it came from: the environment, or the key file of the data directory. */
  source: 'env' | 'file';
  /** The key file's path (source `file`). */
  file?: string;
  /** True when this process generated the key file just now. */
  created: boolean;
}

const CHECK_SETTING = 'secret_key_check';
export const CHECK_PURPOSE = 'casebook-secret-key-check';
const CHECK_PLAIN = 'casebook secret key check v1';

/** Reads a key file; undefined while it is not all there yet (another process is writing it without link()). */
function readKeyFile(file: string): string | undefined {
  const text = fs.readFileSync(file, 'utf8').trim();
  return text.length >= 16 ? text : undefined;
}

/** Reads the key file, waiting briefly for one that another process is still writing. */
function readExistingKeyFile(file: string): string {
  for (let attempt = 0; attempt < 50; attempt++) {
    const key = readKeyFile(file);
    if (key !== undefined) return key;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  throw new ConfigError(
    `${file} holds no key (it is empty or shorter than 16 characters): restore it from your backup of it, or set CASEBOOK_SECRET_KEY`,
  );
}

/**
 * Creates the key file once across every process starting together: the key is written whole to a file of this
 * process and then linked under the final name, which fails with EEXIST for all but the first, so no process ever
 * reads half a key; the others read the winner's. Where hard links are not supported, the final name is created
 * exclusively ('wx') and readers wait for its content. Answers the key and whether this process created it.
 */
function createOrReadKeyFile(file: string): { key: string; created: boolean } {
  const generated = randomBytes(32).toString('base64url');
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeSync(fd, `${generated}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(tmp, file);
    return { key: generated, created: true };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return { key: readExistingKeyFile(file), created: false };
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
    return createExclusively(file, generated);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function createExclusively(file: string, generated: string): { key: string; created: boolean } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      return { key: readExistingKeyFile(file), created: false };
    }
    throw err;
  }
  try {
    fs.writeSync(fd, `${generated}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return { key: generated, created: true };
}

/** CASEBOOK_SECRET_KEY when set; otherwise the data directory's key file, generated on first start. */
export function resolveSecretKey(config: Pick<Config, 'secretKey' | 'dataDir'>): SecretKey {
  if (config.secretKey !== '') return { key: config.secretKey, source: 'env', created: false };
  fs.mkdirSync(config.dataDir, { recursive: true });
  const file = path.join(config.dataDir, SECRET_KEY_FILE);
  if (fs.existsSync(file)) return { key: readExistingKeyFile(file), source: 'file', file, created: false };
  const { key, created } = createOrReadKeyFile(file);
  return { key, source: 'file', file, created };
}

/** The key's source in words, for messages. */
function describeSource(secret: SecretKey): string {
  return secret.source === 'env'
    ? 'CASEBOOK_SECRET_KEY'
    : `the key file ${secret.file} (used because CASEBOOK_SECRET_KEY is not set)`;
}

/** The kinds of sealed values, each with the opener its module reads it with (which throws under another key). */
const SEALED_KINDS: {
  what: string;
  sample: keyof SealedSamples;
  opens: (key: string, sealed: string) => unknown;
}[] = [
  { what: 'a tracker credential', sample: 'integrationToken', opens: decryptCredential },
  {
    what: 'a webhook secret',
    sample: 'webhookSecret',
    opens: (key, sealed) => openWebhookSecrets(key, { secret_enc: sealed, headers_enc: null }),
  },
  {
    what: "a webhook's custom headers",
    sample: 'webhookHeaders',
    opens: (key, sealed) => openWebhookSecrets(key, { secret_enc: null, headers_enc: sealed }),
  },
  { what: 'a two-factor (TOTP) secret', sample: 'twoFactorSecret', opens: openTotpSecret },
];

/** What the key cannot open among the secrets stored already (one of each kind is tried), or undefined. */
async function unopenedSecret(db: Db, key: string): Promise<string | undefined> {
  const samples = await sealedSamples(db);
  for (const kind of SEALED_KINDS) {
    const sealed = samples[kind.sample];
    if (sealed === undefined) continue;
    try {
      kind.opens(key, sealed);
    } catch {
      return kind.what;
    }
  }
  return undefined;
}

/** Refuses the start (ConfigError: exit 1 with the message), first removing a key file generated just now. */
function refuse(secret: SecretKey, problem: string, sealedWith: string): never {
  if (secret.created && secret.file) fs.rmSync(secret.file, { force: true });
  throw new ConfigError(
    `The secret key from ${describeSource(secret)} does not open this database's secrets: ${problem}. ` +
      `Restore ${secret.file ?? `${SECRET_KEY_FILE} in the data directory`} from your backup of it, ` +
      `or set CASEBOOK_SECRET_KEY to the key ${sealedWith} (every instance must use the same value). ` +
      'Starting with a new key would leave the stored credentials unreadable.',
  );
}

/**
 * Stores the check value sealed with this key unless the database has one (the first writer's wins), then opens
 * the stored one: a key that cannot open it is not the key the database's secrets were sealed with, and the
 * process must not start (ConfigError: exit 1 with the message). Before storing the first check value, the key
 * must open one stored secret of each kind there is (a database sealed by a version without the check, started
 * after an upgrade with its key missing or changed); if it cannot, nothing is written and the process refuses too.
 * A key file generated just now for a database the key does not fit is removed again, so that restoring the
 * right one is a plain copy.
 */
export async function verifySecretKey(db: Db, secret: SecretKey): Promise<void> {
  if ((await readSetting(db, CHECK_SETTING)) === undefined) {
    const unopened = await unopenedSecret(db, secret.key);
    if (unopened !== undefined) {
      refuse(
        secret,
        `${unopened} stored there was sealed with another key`,
        'the existing secrets were sealed with',
      );
    }
    await insertSettingIfAbsent(
      db,
      CHECK_SETTING,
      seal(CHECK_PLAIN, secret.key, CHECK_PURPOSE),
      new Date().toISOString(),
    );
  }
  const stored = await readSetting(db, CHECK_SETTING);
  let opened: string | undefined;
  try {
    opened = stored === undefined ? undefined : open(stored, secret.key, CHECK_PURPOSE);
  } catch {
    opened = undefined;
  }
  if (opened === CHECK_PLAIN) return;
  refuse(secret, 'they were sealed with another key', 'the database was sealed with');
}

/** Lines for the first-start banner, or a notice of their own: where the key is and that it must be backed up. */
export function secretKeyNotice(secret: SecretKey): string[] {
  if (!secret.created) return [];
  return [
    ` Secret key: generated into ${secret.file} (CASEBOOK_SECRET_KEY is not set).`,
    '   Back it up now, and keep it apart from the database backups: without it the stored credentials',
    '   cannot be opened, and a stolen backup that carries its key opens them too. Several machines:',
    '   set CASEBOOK_SECRET_KEY to one value on every instance instead.',
  ];
}
