import fs from 'node:fs';
import path from 'node:path';
import { checkAllowEntry } from './lib/ssrf.js';

/** Every setting of the service, read once at start from the environment and command-line flags. */
export interface Config {
  port: number;
  host: string;
  /** `sqlite:<path>`, `sqlite::memory:` or `postgres://…`. */
  databaseUrl: string;
  dataDir: string;
  /** Absolute address clients use to reach the service (file URLs, links printed at first start). */
  publicUrl: string;
  /**
   * Whether CASEBOOK_PUBLIC_URL was set. When not, addresses handed to clients on other machines (the device
   * sign-in's verification_uri, check-tenant's redirectUrl) are taken from the address the request came to:
   * the derived `http://localhost:<port>` is unreachable from there.
   */
  publicUrlSet: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Largest accepted JSON body, in bytes (D8). */
  bodyLimit: number;
  /** D1: when true, the request's host name selects the tenant; otherwise every request is the default tenant. */
  multiTenant: boolean;
  /** D14: requests per minute per key; 0 turns rate limiting off (the default). */
  rateLimitPerMinute: number;
  /**
   * Key that encrypts integration credentials at rest (derived into AES-256 with scrypt): CASEBOOK_SECRET_KEY, or
   * empty here when unset, in which case the start fills it from `<data dir>/secret.key` (src/secret-key.ts).
   */
  secretKey: string;
  ownerEmail?: string;
  ownerPassword?: string;
  /** How long audit events are kept, in days; 0 keeps them for ever. */
  auditRetentionDays: number;
  sessionTtlHours: number;
  /**
   * Whether X-Forwarded-For is believed (the client address feeds sign-in throttling, rate limits and audit).
   * `false` unless the service runs behind a proxy: true, a hop count, or comma-separated proxy addresses/CIDRs.
   */
  trustProxy: boolean | number | string;
  /** Number of worker processes for `serve`; 1 runs in the main process. */
  workers: number;
  /** File uploads (`POST /file`, `/file/batch`): largest file, most files and most bytes per request. */
  uploadMaxFileBytes: number;
  uploadMaxFiles: number;
  uploadMaxRequestBytes: number;
  /** Test-case imports (`POST /project/{p}/import`): the largest file, refused before it is stored. */
  importMaxBytes: number;
  /**
   * Uploaded files are parsed in worker threads (lib/isolated/): at most `parsers` at once in the process, at most
   * `parsersPerTenant` of one tenant; each with `parserMemoryMb` of heap and `parserSeconds` of working time per
   * reading of the file. A file past a budget fails its own import, nothing else.
   */
  parsers: number;
  parsersPerTenant: number;
  parserMemoryMb: number;
  parserSeconds: number;
  /** Finished jobs and webhook delivery records are kept this many days; 0 keeps them for ever. */
  jobRetentionDays: number;
  /** How long a job's claim lasts: a job whose process died is taken again after it. Above the 10 s send timeout. */
  jobLeaseSeconds: number;
  /** CASEBOOK_WEBHOOK_ALLOW_PRIVATE: outbound requests may reach private, loopback and link-local addresses. */
  webhookAllowPrivate: boolean;
  /** CASEBOOK_OUTBOUND_ALLOW: host names and networks outbound requests may reach although private. */
  outboundAllow: string[];
  /**
   * Outgoing mail (invitation and password-reset links): `smtp://user:pass@host:port` or `smtps://…`. Unset:
   * no mail; an invitation's link is shown once to the admin who made it, a reset link is issued by an admin.
   */
  smtpUrl?: string;
  /** The sender of that mail (`Name <address>` or an address). */
  mailFrom: string;
  /**
   * After SIGTERM, seconds the process keeps serving while `/readyz` answers 503, so the load balancer stops
   * sending before it closes (CASEBOOK_DRAIN_SECONDS, default 5; 0 closes at once).
   */
  drainSeconds: number;
  /** CASEBOOK_METRICS_TOKEN: `/metrics` answers only with `Authorization: Bearer <token>`; unset, it is off (404). */
  metricsToken?: string;
  /** CASEBOOK_REDIS_URL: rate-limit counters live in this Redis (shared by every process and machine). */
  redisUrl?: string;
  /** CASEBOOK_REDIS_PREFIX: the prefix of every key written there (several services may share one Redis). */
  redisPrefix: string;
  /**
   * CASEBOOK_FILE_STORAGE: where new uploads are kept (docs/operations.md#file-storage). `local` (the default on
   * both databases: existing installations keep their files where they are), `postgres` (only on PostgreSQL) or
   * `s3`. Each file remembers its backend, so files uploaded before a change stay readable.
   */
  fileStorage: FileStorageName;
  /** S3-compatible object storage; set when CASEBOOK_S3_BUCKET is. */
  s3?: S3Settings;
  /**
   * PostgreSQL: bodies of big run lists kept per process and checked against the database on every request
   * (runs/run-tcases/run-list-cache.ts). CASEBOOK_RUN_LIST_CACHE_MB, default 32; 0 turns it off.
   */
  runListCacheBytes: number;
  /** Shorter run list bodies are not kept (about 1,000 cases); tests lower it. */
  runListCacheMinBytes: number;
}

export const FILE_STORAGES = ['local', 'postgres', 's3'] as const;
export type FileStorageName = (typeof FILE_STORAGES)[number];

export interface S3Settings {
  /** CASEBOOK_S3_ENDPOINT: a self-hosted store's address; unset for AWS itself. */
  endpoint?: string;
  region: string;
  bucket: string;
  /** Objects are kept under `<prefix><storage key>`. */
  prefix: string;
  /** Both or neither: unset, the AWS SDK's own chain (environment, instance role) supplies credentials. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style addresses (`endpoint/bucket/key`), which self-hosted stores need; default on with an endpoint. */
  forcePathStyle: boolean;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

export interface ConfigFlags {
  port?: string;
  host?: string;
  database?: string;
  dataDir?: string;
  workers?: string;
}

function intSetting(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function trustProxySetting(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || /^(0|false|no|off)$/i.test(raw)) return false;
  if (/^(true|yes|on)$/i.test(raw)) return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  if (/^[\d.:a-fA-F/, ]+$/.test(raw)) return raw;
  throw new ConfigError(
    `CASEBOOK_TRUST_PROXY must be true, false, a hop count or proxy addresses, got "${raw}"`,
  );
}

function boolSetting(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function s3Settings(env: Env): S3Settings | undefined {
  const bucket = env.CASEBOOK_S3_BUCKET || undefined;
  if (bucket === undefined) return undefined;
  const endpoint = env.CASEBOOK_S3_ENDPOINT || undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]/.test(endpoint)) {
    throw new ConfigError(`CASEBOOK_S3_ENDPOINT must be an http:// or https:// address, got "${endpoint}"`);
  }
  const accessKeyId = env.CASEBOOK_S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.CASEBOOK_S3_SECRET_ACCESS_KEY || undefined;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError(
      'CASEBOOK_S3_ACCESS_KEY_ID and CASEBOOK_S3_SECRET_ACCESS_KEY are set together or not at all',
    );
  }
  const prefix = env.CASEBOOK_S3_PREFIX ?? '';
  if (!/^([A-Za-z0-9._-]+\/)*$/.test(prefix)) {
    throw new ConfigError(
      `CASEBOOK_S3_PREFIX must be empty or end with "/" (e.g. casebook/), got "${prefix}"`,
    );
  }
  return {
    endpoint,
    region: env.CASEBOOK_S3_REGION || 'us-east-1',
    bucket,
    prefix,
    accessKeyId,
    secretAccessKey,
    forcePathStyle: boolSetting(
      'CASEBOOK_S3_FORCE_PATH_STYLE',
      env.CASEBOOK_S3_FORCE_PATH_STYLE,
      endpoint !== undefined,
    ),
  };
}

/**
 * Secret settings that may be given as a file instead (`<NAME>_FILE`, as container platforms mount secrets):
 * the file's content with one trailing newline removed. Both set is an error; an unreadable file stops the start.
 */
export const FILE_SETTINGS = [
  'CASEBOOK_SECRET_KEY',
  'CASEBOOK_DATABASE_URL',
  'CASEBOOK_REDIS_URL',
  'CASEBOOK_METRICS_TOKEN',
  'CASEBOOK_SMTP_URL',
  'CASEBOOK_OWNER_PASSWORD',
  'CASEBOOK_S3_SECRET_ACCESS_KEY',
] as const;

/** The environment with every `<NAME>_FILE` of FILE_SETTINGS read into `<NAME>`. */
export function readFileSettings(env: Env): Env {
  const out = { ...env };
  for (const name of FILE_SETTINGS) {
    const file = env[`${name}_FILE`];
    if (file === undefined || file === '') continue;
    if ((env[name] ?? '') !== '')
      throw new ConfigError(`${name} and ${name}_FILE are both set: set one of them`);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(
        `${name}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
    out[name] = text.replace(/\r?\n$/, '');
    if (out[name] === '') throw new ConfigError(`${name}_FILE: ${file} is empty`);
  }
  return out;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Builds and validates the configuration; flags win over the environment. Throws ConfigError with a readable message. */
export function loadConfig(given: Env = process.env, flags: ConfigFlags = {}): Config {
  const env = readFileSettings(given);
  const dataDir = path.resolve(flags.dataDir ?? env.CASEBOOK_DATA_DIR ?? './data');
  const port = intSetting('PORT', flags.port ?? env.PORT, 3000, 0, 65535);
  const host = flags.host ?? env.HOST ?? '0.0.0.0';
  const databaseUrl =
    flags.database ?? env.CASEBOOK_DATABASE_URL ?? `sqlite:${path.join(dataDir, 'casebook.db')}`;
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(databaseUrl)) {
    throw new ConfigError(
      `CASEBOOK_DATABASE_URL must start with sqlite: or postgres://, got "${databaseUrl.replace(/\/\/[^@]*@/, '//****@')}"`,
    );
  }
  const logLevel = (env.CASEBOOK_LOG_LEVEL ?? env.LOG_LEVEL ?? 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`CASEBOOK_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const displayHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const publicUrlSet = (env.CASEBOOK_PUBLIC_URL ?? '') !== '';
  const publicUrl = (publicUrlSet ? env.CASEBOOK_PUBLIC_URL! : `http://${displayHost}:${port}`).replace(
    /\/+$/,
    '',
  );
  try {
    new URL(publicUrl);
  } catch {
    throw new ConfigError(`CASEBOOK_PUBLIC_URL must be an absolute URL, got "${publicUrl}"`);
  }
  const ownerEmail = env.CASEBOOK_OWNER_EMAIL || undefined;
  const ownerPassword = env.CASEBOOK_OWNER_PASSWORD || undefined;
  if (ownerPassword !== undefined && ownerPassword.length < 8) {
    throw new ConfigError('CASEBOOK_OWNER_PASSWORD must be at least 8 characters');
  }
  const outboundAllow = (env.CASEBOOK_OUTBOUND_ALLOW ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of outboundAllow) {
    const problem = checkAllowEntry(entry);
    if (problem) throw new ConfigError(`CASEBOOK_OUTBOUND_ALLOW: ${problem}`);
  }
  const secretKey = env.CASEBOOK_SECRET_KEY ?? '';
  if (secretKey !== '' && secretKey.length < 16) {
    throw new ConfigError('CASEBOOK_SECRET_KEY must be at least 16 characters');
  }
  const smtpUrl = env.CASEBOOK_SMTP_URL || undefined;
  if (smtpUrl !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(smtpUrl);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^smtps?:$/.test(parsed.protocol) || !parsed.hostname) {
      throw new ConfigError(
        `CASEBOOK_SMTP_URL must be smtp://[user:pass@]host[:port] or smtps://…, got "${smtpUrl.replace(/\/\/[^@]*@/, '//****@')}"`,
      );
    }
  }
  const mailFrom = env.CASEBOOK_MAIL_FROM || `Casebook <casebook@${new URL(publicUrl).hostname}>`;
  if (!/^[^\r\n]*\S+@\S+[^\r\n]*$/.test(mailFrom)) {
    throw new ConfigError(
      `CASEBOOK_MAIL_FROM must be an e-mail address (optionally "Name <address>"), got "${mailFrom}"`,
    );
  }
  const metricsToken = env.CASEBOOK_METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && (metricsToken.length < 16 || /\s/.test(metricsToken))) {
    throw new ConfigError('CASEBOOK_METRICS_TOKEN must be at least 16 characters without spaces');
  }
  const redisUrl = env.CASEBOOK_REDIS_URL || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\/[^/]/.test(redisUrl)) {
    throw new ConfigError(
      `CASEBOOK_REDIS_URL must be redis://[user:pass@]host[:port][/db] or rediss://…, got "${redisUrl.replace(/\/\/[^@]*@/, '//****@')}"`,
    );
  }
  const fileStorage = (env.CASEBOOK_FILE_STORAGE || 'local') as FileStorageName;
  if (!FILE_STORAGES.includes(fileStorage)) {
    throw new ConfigError(
      `CASEBOOK_FILE_STORAGE must be one of ${FILE_STORAGES.join(', ')}, got "${fileStorage}"`,
    );
  }
  if (fileStorage === 'postgres' && databaseUrl.startsWith('sqlite:')) {
    throw new ConfigError(
      'CASEBOOK_FILE_STORAGE=postgres keeps files in the database and needs a PostgreSQL one (CASEBOOK_DATABASE_URL=postgres://…); on SQLite use local or s3',
    );
  }
  const s3 = s3Settings(env);
  if (fileStorage === 's3' && !s3) {
    throw new ConfigError(
      "CASEBOOK_FILE_STORAGE=s3 needs CASEBOOK_S3_BUCKET (and the store's endpoint and keys)",
    );
  }
  return {
    fileStorage,
    s3,
    smtpUrl,
    mailFrom,
    drainSeconds: intSetting('CASEBOOK_DRAIN_SECONDS', env.CASEBOOK_DRAIN_SECONDS, 5, 0, 3600),
    metricsToken,
    redisUrl,
    redisPrefix: env.CASEBOOK_REDIS_PREFIX || 'casebook:',
    port,
    host,
    databaseUrl,
    dataDir,
    publicUrl,
    publicUrlSet,
    logLevel,
    bodyLimit: intSetting('CASEBOOK_BODY_LIMIT', env.CASEBOOK_BODY_LIMIT, 32 * 1024 * 1024, 1024, 1024 ** 3),
    trustProxy: trustProxySetting(env.CASEBOOK_TRUST_PROXY),
    multiTenant: boolSetting('CASEBOOK_MULTI_TENANT', env.CASEBOOK_MULTI_TENANT, false),
    rateLimitPerMinute: intSetting('CASEBOOK_RATE_LIMIT', env.CASEBOOK_RATE_LIMIT, 0, 0, 10_000_000),
    secretKey,
    ownerEmail,
    ownerPassword,
    auditRetentionDays: intSetting(
      'CASEBOOK_AUDIT_RETENTION_DAYS',
      env.CASEBOOK_AUDIT_RETENTION_DAYS,
      0,
      0,
      36500,
    ),
    sessionTtlHours: intSetting(
      'CASEBOOK_SESSION_TTL_HOURS',
      env.CASEBOOK_SESSION_TTL_HOURS,
      24 * 14,
      1,
      24 * 365,
    ),
    workers: intSetting('CASEBOOK_WORKERS', flags.workers ?? env.CASEBOOK_WORKERS, 1, 1, 256),
    // docs/api-decisions.md#endpoints-beyond-the-public-api: clients send up to 50 MiB a file and 100 files / 100 MiB a request.
    uploadMaxFileBytes: intSetting(
      'CASEBOOK_UPLOAD_MAX_FILE_BYTES',
      env.CASEBOOK_UPLOAD_MAX_FILE_BYTES,
      50 * 1024 * 1024,
      1,
      1024 ** 4,
    ),
    jobRetentionDays: intSetting(
      'CASEBOOK_JOB_RETENTION_DAYS',
      env.CASEBOOK_JOB_RETENTION_DAYS,
      30,
      0,
      36500,
    ),
    jobLeaseSeconds: intSetting('CASEBOOK_JOB_LEASE_SECONDS', env.CASEBOOK_JOB_LEASE_SECONDS, 60, 11, 86_400),
    webhookAllowPrivate: boolSetting(
      'CASEBOOK_WEBHOOK_ALLOW_PRIVATE',
      env.CASEBOOK_WEBHOOK_ALLOW_PRIVATE,
      false,
    ),
    outboundAllow,
    // extensions.md §7: imports up to 100 MiB by default.
    importMaxBytes: intSetting(
      'CASEBOOK_IMPORT_MAX_BYTES',
      env.CASEBOOK_IMPORT_MAX_BYTES,
      100 * 1024 * 1024,
      1,
      1024 ** 4,
    ),
    parsers: intSetting('CASEBOOK_PARSERS', env.CASEBOOK_PARSERS, 2, 1, 64),
    parsersPerTenant: intSetting('CASEBOOK_PARSERS_PER_TENANT', env.CASEBOOK_PARSERS_PER_TENANT, 1, 1, 64),
    parserMemoryMb: intSetting('CASEBOOK_PARSER_MEMORY_MB', env.CASEBOOK_PARSER_MEMORY_MB, 512, 64, 65_536),
    parserSeconds: intSetting('CASEBOOK_PARSER_SECONDS', env.CASEBOOK_PARSER_SECONDS, 600, 1, 86_400),
    uploadMaxFiles: intSetting('CASEBOOK_UPLOAD_MAX_FILES', env.CASEBOOK_UPLOAD_MAX_FILES, 100, 1, 100_000),
    runListCacheBytes:
      intSetting('CASEBOOK_RUN_LIST_CACHE_MB', env.CASEBOOK_RUN_LIST_CACHE_MB, 32, 0, 65_536) * 1024 * 1024,
    runListCacheMinBytes: 256 * 1024,
    uploadMaxRequestBytes: intSetting(
      'CASEBOOK_UPLOAD_MAX_REQUEST_BYTES',
      env.CASEBOOK_UPLOAD_MAX_REQUEST_BYTES,
      100 * 1024 * 1024,
      1,
      1024 ** 4,
    ),
  };
}
