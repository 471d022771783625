#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { createDb, type Db } from '../db/create-db.js';
import { migrateToLatest } from '../db/migrator.js';
import { takeBackup } from './backup/backup.js';
import { restoreBackup, verifyBackup } from './backup/restore.js';
import { exportProject, importProject } from './archive.js';
import { runCopy } from './copy/command.js';
import { AppError } from '../errors.js';
import { firstStart, firstStartBanner, saveFirstStartCredentials } from '../bootstrap.js';
import { rotateSecretKey } from '../secret-key-rotate.js';
import * as accounts from '../modules/accounts/accounts.service.js';
import * as keys from '../modules/api-keys/api-keys.service.js';
import * as tenants from '../modules/tenants/tenants.service.js';
import * as users from '../modules/users/users.service.js';
import { newSecret } from '../lib/ids.js';
import { moveFiles } from '../modules/files/files.move.js';
import { openFileStorages } from '../modules/files/files.storages.js';

const USAGE = `casebook <command> [options]     (casebook --version prints the release)

  serve [--port N] [--host H] [--database URL] [--workers N]
                                                   run the server; N processes share the
                                                   port (default: one per core on PostgreSQL, 1 on SQLite)
  migrate [--database URL]                         bring the database schema up to date
  copy --from URL --to URL [--files-to DIR [--files-from DIR]]
                                                   offline copy of every tenant into an empty database
                                                   (SQLite ⇄ PostgreSQL), ids and counters kept; resumes
                                                   an interrupted copy; copies every file body into the
                                                   target's CASEBOOK_FILE_STORAGE (or the local directory
                                                   --files-to); local sources are read from --files-from
                                                   (default <data dir>/files)
  backup --to FILE [--include-secret-key]          one archive while the service runs: a consistent snapshot
                                                   of the database (SQLite or PostgreSQL), every file's bytes
                                                   and a manifest with checksums; the secret key only when asked
  backup verify FILE                               checks every checksum, the manifest and that the snapshot opens
  restore --from FILE                              a backup into an empty database of either kind (the configured
                                                   one) and its files into the configured file storage
  secret-key rotate                                seals every stored secret again under a new key, in one
                                                   transaction; says where the key is and what to change
  user create --email E --name N --role R [--password P] [--tenant T]
                                                   --role owner only while the tenant has no owner
  user list [--tenant T]
  user reset-link --email E [--tenant T]           prints a one-hour password reset link
  key create --email E --name N [--expires ISO-DATE] [--tenant T]   prints {"key": "..."} once
  key list [--email E] [--tenant T]
  key revoke --id KEY_ID [--tenant T]
  tenant create --id ID --name N [--host H] [--owner-email E [--owner-name N] [--owner-password P]]
                                                   with --owner-email also its owner; a generated password
                                                   is printed once (owner.password)
  tenant set-host --id ID --host H                 the host name that picks the tenant (multi-tenant mode)
  tenant list
  tenant suspend [--id ID] | tenant resume [--id ID]
                                                   without --id: the default tenant, as for features
  tenant features [--id ID] --set advanced-auth=on|off
  export --project CODE --out FILE [--tenant T]    the whole project as a Casebook archive (docs/archive-
                                                   format.md); progress on stderr; prints {file, bytes, records}
  import --file FILE [--code NEW] [--tenant T]     creates the project of a Casebook archive (its code, or
                                                   NEW); all or nothing; progress on stderr
  files move --to local|postgres|s3                moves every file's bytes to that storage (copy, check
                                                   size and sha256, switch, delete the old copy); resumable,
                                                   progress on stderr; set CASEBOOK_FILE_STORAGE to match

Settings come from the environment (PORT, HOST, CASEBOOK_DATABASE_URL, CASEBOOK_DATA_DIR, ...); flags win.`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  database: { type: 'string' },
  'data-dir': { type: 'string' },
  workers: { type: 'string' },
  to: { type: 'string' },
  from: { type: 'string' },
  'files-from': { type: 'string' },
  'files-to': { type: 'string' },
  email: { type: 'string' },
  name: { type: 'string' },
  role: { type: 'string' },
  password: { type: 'string' },
  expires: { type: 'string' },
  tenant: { type: 'string' },
  id: { type: 'string' },
  set: { type: 'string' },
  'owner-email': { type: 'string' },
  'owner-name': { type: 'string' },
  'owner-password': { type: 'string' },
  project: { type: 'string' },
  out: { type: 'string' },
  file: { type: 'string' },
  code: { type: 'string' },
  'include-secret-key': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

class UsageError extends Error {}

const toStderr = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

function need(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${String(name)} is required`);
  return value;
}

async function withDb<T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = createDb(config.databaseUrl);
  try {
    await migrateToLatest(db);
    const first = await firstStart(db, config);
    if (first) {
      const file = saveFirstStartCredentials(config.dataDir, first, config.publicUrl);
      const terminal = Boolean(process.stderr.isTTY);
      process.stderr.write(`${firstStartBanner(first, config.publicUrl, [], { file, terminal })}\n`);
    }
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

/** Commands that act inside one tenant: an unknown `--tenant` is a clear error, not a foreign-key failure. */
function withTenantDb<T>(config: Config, tenantId: string, fn: (db: Db) => Promise<T>): Promise<T> {
  return withDb(config, async (db) => {
    await tenants.getTenant(db, tenantId);
    return fn(db);
  });
}

async function copyCommand(config: Config, values: Values): Promise<void> {
  const report = await runCopy({
    from: need(values, 'from'),
    to: need(values, 'to'),
    filesFrom: values['files-from'] ?? path.join(config.dataDir, 'files'),
    filesTo: values['files-to'],
    storage: config,
  });
  print(report);
  if (!report.ok) throw new AppError('CONFLICT', 'the copy does not match its source (see "tables")');
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  const [command, sub] = positionals;
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // `casebook --version`: the installed release (package.json, one folder up from dist/ as from src/).
  if (values.version || command === 'version') {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    process.stdout.write(`${pkg.version}\n`);
    return;
  }
  // No command prints the usage rather than starting a server on every address (`serve` says so).
  if (command === undefined) throw new UsageError('a command is required');
  const config = loadConfig(process.env, {
    port: values.port,
    // `--host` of the tenant commands names a tenant's host, not the address the server listens on.
    host: command === 'serve' ? values.host : undefined,
    // The copy's settings are the target's: its file storage is checked against the database it will run on.
    database: command === 'copy' ? (values.to ?? values.database) : values.database,
    dataDir: values['data-dir'],
    workers: values.workers,
  });
  const tenantId = values.tenant ?? tenants.DEFAULT_TENANT_ID;

  switch (`${command}${sub ? ` ${sub}` : ''}`) {
    case 'serve': {
      // Loaded on demand: the HTTP stack (Fastify, routes, OpenAPI) would double the start-up of every other command.
      // Meanwhile a stop ends it at once (nothing is started yet): node as a container's PID 1 ignores a signal
      // it has no handler for. serve() puts its own in place before anything else, in the same tick.
      const early = (signal: NodeJS.Signals) => {
        process.stderr.write(`${JSON.stringify({ signal, msg: 'stopped before it listened' })}\n`);
        process.exit(0);
      };
      process.once('SIGTERM', early).once('SIGINT', early);
      const { serve, defaultWorkers } = await import('../cluster.js');
      process.off('SIGTERM', early).off('SIGINT', early);
      const chosen = values.workers !== undefined || (process.env.CASEBOOK_WORKERS ?? '') !== '';
      await serve(chosen ? config : { ...config, workers: defaultWorkers(config.databaseUrl) });
      return;
    }
    case 'copy':
      return copyCommand(config, values);
    case 'backup':
      if (values['include-secret-key'])
        process.stderr.write(
          'warning: the backup holds the secret key; whoever has the file can open the stored credentials. Keep it apart from other backups.\n',
        );
      print(
        await takeBackup(config, {
          to: need(values, 'to'),
          includeSecretKey: values['include-secret-key'] === true,
          progress: toStderr,
        }),
      );
      return;
    case 'backup verify': {
      const file = positionals[2];
      if (!file) throw new UsageError('backup verify needs the backup file: casebook backup verify FILE');
      print(await verifyBackup(file));
      return;
    }
    case 'restore':
      print(await restoreBackup(config, need(values, 'from'), toStderr));
      return;
    case 'migrate': {
      const db = createDb(config.databaseUrl);
      try {
        print({ applied: await migrateToLatest(db) });
      } finally {
        await db.destroy();
      }
      return;
    }
    case 'secret-key rotate':
      return withDb(config, async (db) => print(await rotateSecretKey(db, config)));
    case 'user create':
      return withTenantDb(config, tenantId, async (db) => {
        const input = {
          email: need(values, 'email'),
          name: need(values, 'name'),
          role: need(values, 'role'),
          password: values.password,
        };
        // D3: the first owner of a tenant that has none; later ones are refused (transfer instead).
        print(
          input.role === 'owner'
            ? await users.createFirstOwner(db, tenantId, input)
            : await users.createUser(db, tenantId, input),
        );
      });
    case 'user list':
      return withTenantDb(config, tenantId, async (db) =>
        print({ users: await users.listUsers(db, tenantId) }),
      );
    case 'user reset-link':
      // A link to the derived http://localhost:3000 reaches nobody: the command says so instead of printing one.
      if (!config.publicUrlSet)
        throw new ConfigError(
          "CASEBOOK_PUBLIC_URL is not set, so the link would point at nothing reachable: run the command with the server's settings (node --env-file=FILE …, docs/configuration.md) or set CASEBOOK_PUBLIC_URL",
        );
      return withTenantDb(config, tenantId, async (db) => {
        const source = { tenantId, ip: '', userAgent: 'casebook-cli' };
        print({
          link: await accounts.createPasswordResetLink(db, source, need(values, 'email'), config.publicUrl),
        });
      });
    case 'key create':
      return withTenantDb(config, tenantId, async (db) => {
        const user = await users.getUserByEmail(db, tenantId, need(values, 'email'));
        const { id, key } = await keys.createApiKey(db, tenantId, {
          userId: user.id,
          name: need(values, 'name'),
          expiresAt: values.expires ?? null,
        });
        print({ id, key });
      });
    case 'key list':
      return withTenantDb(config, tenantId, async (db) => {
        const userId = values.email ? (await users.getUserByEmail(db, tenantId, values.email)).id : undefined;
        print({ keys: await keys.listApiKeys(db, tenantId, userId) });
      });
    case 'key revoke':
      return withTenantDb(config, tenantId, async (db) => {
        const id = need(values, 'id');
        await keys.revokeApiKey(db, tenantId, id);
        print({ revoked: id });
      });
    case 'tenant create':
      return withDb(config, async (db) => {
        const input = { id: need(values, 'id'), name: need(values, 'name'), host: values.host };
        const ownerEmail = values['owner-email'];
        if (ownerEmail === undefined) {
          if (values['owner-name'] !== undefined || values['owner-password'] !== undefined)
            throw new UsageError('--owner-name and --owner-password need --owner-email');
          return print(await tenants.createTenant(db, input));
        }
        // The tenant and its owner together or neither: a tenant without an owner is the gap this closes.
        const generated = values['owner-password'] === undefined ? newSecret(12) : undefined;
        print(
          await db.transaction().execute(async (trx) => {
            const tenant = await tenants.createTenant(trx, input);
            const owner = await users.createFirstOwner(trx, tenant.id, {
              email: ownerEmail,
              name: values['owner-name'] ?? 'Owner',
              password: values['owner-password'] ?? generated,
            });
            // A generated password is shown this once; one that was given is not echoed.
            return { ...tenant, owner: generated ? { ...owner, password: generated } : owner };
          }),
        );
      });
    case 'tenant set-host':
      return withDb(config, async (db) =>
        print(await tenants.setHost(db, need(values, 'id'), need(values, 'host'))),
      );
    case 'tenant list':
      return withDb(config, async (db) => print({ tenants: await tenants.listTenants(db) }));
    case 'tenant suspend':
    case 'tenant resume':
      return withDb(config, async (db) =>
        // As `tenant features`: without --id, the tenant the other commands act on (default, or --tenant).
        print(await tenants.setSuspended(db, values.id ?? tenantId, sub === 'suspend')),
      );
    case 'tenant features':
      return withDb(config, async (db) => {
        const match = /^([\w-]+)=(on|off)$/.exec(need(values, 'set'));
        if (!match) throw new UsageError('--set takes FEATURE=on|off, e.g. advanced-auth=off');
        print(await tenants.setFeature(db, values.id ?? tenantId, match[1], match[2] === 'on'));
      });
    case 'export':
      return withTenantDb(config, tenantId, async (db) => {
        const storages = openFileStorages(config, db);
        try {
          print(await exportProject(db, storages, tenantId, need(values, 'project'), need(values, 'out')));
        } finally {
          storages.close();
        }
      });
    case 'import':
      return withTenantDb(config, tenantId, async (db) => {
        const storages = openFileStorages(config, db);
        try {
          print(await importProject(db, config, storages, tenantId, need(values, 'file'), values.code));
        } finally {
          storages.close();
        }
      });
    case 'files move':
      return withDb(config, async (db) => {
        const storages = openFileStorages(config, db);
        try {
          let shown = 0;
          // A progress line a second at most, and the last one.
          const summary = await moveFiles(db, storages, need(values, 'to'), (p) => {
            if (Date.now() - shown < 1000 && p.done < p.total) return;
            shown = Date.now();
            process.stderr.write(`${JSON.stringify({ progress: p })}\n`);
          });
          print(summary);
        } finally {
          storages.close();
        }
      });
    default:
      throw new UsageError(`unknown command "${[command, sub].filter(Boolean).join(' ')}"`);
  }
}

run(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`${JSON.stringify({ error: (err as Error).message })}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (err instanceof AppError || err instanceof ConfigError) {
    process.stderr.write(`${JSON.stringify({ error: err.message })}\n`);
    process.exit(1);
  }
  // Unexpected: still one JSON line first (scripts parse it), then the stack for whoever debugs it.
  process.stderr.write(`${JSON.stringify({ error: (err as Error)?.message ?? String(err) })}\n`);
  process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
