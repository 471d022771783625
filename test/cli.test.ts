import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../src/db/create-db.js';
import { migrations } from '../src/db/migrations/index.js';
import { authenticateApiKey } from '../src/modules/api-keys/api-keys.service.js';
import { checkCredentials } from '../src/modules/users/users.service.js';
import { createPostgresDatabase, POSTGRES_URL, type TestDatabase } from './helpers/databases.js';
import { cliArgs } from './helpers/cli-command.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real command line (helpers/cli-command.ts) in a child process; each start costs about a second. */
function cli(databaseUrl: string, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...cliArgs(), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, CASEBOOK_DATABASE_URL: databaseUrl, CASEBOOK_LOG_LEVEL: 'silent' },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const json = (r: CliResult) => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

/** A failure: non-zero exit, nothing on stdout, and a JSON `{error}` line on stderr. */
function failure(r: CliResult, code: number, message: RegExp) {
  expect(r.code, r.stdout + r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  const line = r.stderr.split('\n').find((l) => l.startsWith('{'));
  expect(line, r.stderr).toBeDefined();
  expect(JSON.parse(line!)).toEqual({ error: expect.stringMatching(message) });
}

const ALL_MIGRATIONS = Object.keys(migrations).map((name) => `Up ${name}`);

describe('casebook command line [sqlite]', () => {
  let dir: string;
  let url: string;
  let db: Db;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-cli-'));
    url = `sqlite:${path.join(dir, 'x.db')}`;
  });
  afterAll(async () => {
    await db?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('migrates an empty database to the latest schema', async () => {
    expect(json(await cli(url, 'migrate'))).toEqual({ applied: ALL_MIGRATIONS });
    db = createDb(url);
    const tables = await db.introspection.getTables();
    expect(tables.map((x) => x.name)).toEqual(
      expect.arrayContaining(['tenants', 'users', 'api_keys', 'folders']),
    );
  });

  it('creates a user and prints it as JSON; the first command on a fresh database sets up the owner once', async () => {
    const created = await cli(
      url,
      'user',
      'create',
      '--email',
      'Ann@Example.com',
      '--name',
      'Ann',
      '--role',
      'admin',
      '--password',
      'ann-password',
    );
    expect(json(created)).toEqual({
      id: expect.any(Number),
      email: 'Ann@Example.com',
      name: 'Ann',
      role: 'admin',
      avatar: null,
      active: true,
    });
    // The first-start banner goes to stderr so stdout stays parseable.
    expect(created.stderr).toContain('Casebook is ready');
    const row = await db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', 'Ann@Example.com')
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$/);

    const listed = json(await cli(url, 'user', 'list'));
    expect(listed.users.map((u: { email: string; role: string }) => [u.email, u.role])).toEqual([
      ['owner@casebook.local', 'owner'],
      ['Ann@Example.com', 'admin'],
    ]);
  });

  it('rejects bad input with a non-zero exit and a JSON error, changing nothing', async () => {
    // Four spawns, the costly part of this file: unknown role, duplicate e-mail, unknown command, unknown tenant.
    const [duplicate, badRole, unknownCommand, unknownTenant] = await Promise.all([
      cli(url, 'user', 'create', '--email', 'ann@example.COM', '--name', 'Again', '--role', 'user'),
      cli(url, 'user', 'create', '--email', 'bob@example.com', '--name', 'Bob', '--role', 'boss'),
      cli(url, 'frobnicate'),
      cli(url, 'key', 'create', '--email', 'ann@example.com', '--name', 'old', '--tenant', 'nope'),
    ]);
    failure(duplicate, 1, /a user with e-mail ann@example.COM exists/);
    failure(badRole, 1, /role must be one of viewer, test-runner, user, admin, owner/);
    failure(unknownCommand, 2, /unknown command "frobnicate"/);
    expect(unknownCommand.stderr).toContain('casebook <command>');
    failure(unknownTenant, 1, /tenant "nope" not found/);
    const users = await db.selectFrom('users').select('email').execute();
    expect(users).toHaveLength(2);
    expect(await db.selectFrom('api_keys').select('id').where('name', '=', 'old').execute()).toEqual([]);
  });

  it('creates a key that authenticates as its user, lists keys without secrets, and revokes one', async () => {
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const created = json(
      await cli(url, 'key', 'create', '--email', 'ann@example.com', '--name', 'ci', '--expires', expires),
    );
    expect(created).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^default\.[a-z0-9]+\.\S{32,}$/),
    });
    const check = await authenticateApiKey(db, 'default', created.key);
    expect(check).toMatchObject({ ok: true, role: 'admin', keyId: created.id, keyName: 'ci' });

    const listing = await cli(url, 'key', 'list', '--email', 'ann@example.com');
    expect(json(listing)).toEqual({
      keys: [
        {
          id: created.id,
          name: 'ci',
          userId: expect.any(Number),
          userEmail: 'Ann@Example.com',
          createdAt: expect.any(String),
          expiresAt: expires,
          revokedAt: null,
          // It authenticated just above.
          lastUsedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          // A device sign-in (`qasphere auth login`) lists as kind 'device' with its client.
          kind: 'key',
          clientId: null,
        },
      ],
    });
    const secret = created.key.split('.')[2];
    expect(listing.stdout).not.toContain(secret);

    expect(json(await cli(url, 'key', 'revoke', '--id', created.id))).toEqual({ revoked: created.id });
    expect(await authenticateApiKey(db, 'default', created.key)).toEqual({
      ok: false,
      reason: 'API key revoked',
    });
  });

  it('creates, lists, suspends and resumes tenants and switches features', async () => {
    const created = json(
      await cli(
        url,
        'tenant',
        'create',
        '--id',
        'other-co',
        '--name',
        'Other Co',
        '--host',
        'Other.Example.com',
      ),
    );
    expect(created).toMatchObject({
      id: 'other-co',
      name: 'Other Co',
      host: 'other.example.com',
      suspended: false,
      features: ['advanced-auth'],
    });
    expect(json(await cli(url, 'tenant', 'suspend', '--id', 'other-co'))).toMatchObject({
      id: 'other-co',
      suspended: true,
      suspendedAt: expect.any(String),
    });
    const features = json(await cli(url, 'tenant', 'features', '--set', 'advanced-auth=off'));
    expect(features).toMatchObject({ id: 'default', features: [] });
    const listed = json(await cli(url, 'tenant', 'list'));
    expect(
      listed.tenants.map((x: { id: string; suspended: boolean; features: string[] }) => [
        x.id,
        x.suspended,
        x.features,
      ]),
    ).toEqual([
      ['default', false, []],
      ['other-co', true, ['advanced-auth']],
    ]);
    expect(json(await cli(url, 'tenant', 'resume', '--id', 'other-co'))).toMatchObject({
      suspended: false,
      suspendedAt: null,
    });

    // Without --id, suspend and resume act on the default tenant, as `tenant features` does.
    expect(json(await cli(url, 'tenant', 'suspend'))).toMatchObject({ id: 'default', suspended: true });
    const suspended = await db.selectFrom('tenants').select(['id', 'suspended_at']).orderBy('id').execute();
    expect(suspended).toEqual([
      { id: 'default', suspended_at: expect.any(String) },
      { id: 'other-co', suspended_at: null },
    ]);
    expect(json(await cli(url, 'tenant', 'resume'))).toMatchObject({
      id: 'default',
      suspended: false,
      suspendedAt: null,
    });

    const row = await db
      .selectFrom('tenants')
      .selectAll()
      .where('id', '=', 'default')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.features)).toEqual([]);
  });
  it('prints the usage and exits 2 when no command is given, instead of starting a server', async () => {
    const r = await cli(url);
    failure(r, 2, /a command is required/);
    expect(r.stderr).toContain('casebook <command>');
  });

  it('creates a tenant together with its owner, whose generated password is printed once and signs in', async () => {
    const created = json(
      await cli(
        url,
        'tenant',
        'create',
        '--id',
        'acme',
        '--name',
        'Acme',
        '--owner-email',
        'boss@acme.example',
      ),
    );
    expect(created).toMatchObject({
      id: 'acme',
      host: null,
      owner: { email: 'boss@acme.example', name: 'Owner', role: 'owner', password: expect.any(String) },
    });
    const owner = await checkCredentials(db, 'acme', 'boss@acme.example', created.owner.password);
    expect(owner).toMatchObject({ role: 'owner' });
    // A given password is not echoed; a second owner is refused (ownership moves by transfer only).
    const given = json(
      await cli(
        url,
        'tenant',
        'create',
        '--id',
        'beta',
        '--name',
        'Beta',
        '--owner-email',
        'b@beta.example',
        '--owner-name',
        'Bea',
        '--owner-password',
        'beta-password',
      ),
    );
    expect(given.owner).toEqual({
      id: expect.any(Number),
      email: 'b@beta.example',
      name: 'Bea',
      role: 'owner',
      avatar: null,
      active: true,
    });
    const second = await cli(
      url,
      'user',
      'create',
      '--tenant',
      'acme',
      '--email',
      'two@acme.example',
      '--name',
      'Two',
      '--role',
      'owner',
    );
    failure(second, 1, /exactly one owner/);
    const owners = await db.selectFrom('users').select('email').where('tenant_id', '=', 'acme').execute();
    expect(owners).toEqual([{ email: 'boss@acme.example' }]);
  });

  it('creates neither tenant nor owner when the owner is refused', async () => {
    const r = await cli(
      url,
      'tenant',
      'create',
      '--id',
      'gamma',
      '--name',
      'G',
      '--owner-email',
      'not-an-email',
    );
    failure(r, 1, /not a valid e-mail address/);
    expect(await db.selectFrom('tenants').select('id').where('id', '=', 'gamma').execute()).toEqual([]);
  });

  it('gives a tenant made without an owner its first owner with user create --role owner', async () => {
    json(await cli(url, 'tenant', 'create', '--id', 'delta', '--name', 'Delta'));
    const owner = json(
      await cli(
        url,
        'user',
        'create',
        '--tenant',
        'delta',
        '--email',
        'd@delta.example',
        '--name',
        'Dee',
        '--role',
        'owner',
        '--password',
        'delta-password',
      ),
    );
    expect(owner).toMatchObject({ email: 'd@delta.example', role: 'owner' });
    expect(await checkCredentials(db, 'delta', 'd@delta.example', 'delta-password')).toMatchObject({
      role: 'owner',
    });
  });

  it('sets the host that picks a tenant, the default one included; refuses a taken host or one with a port', async () => {
    expect(
      json(await cli(url, 'tenant', 'set-host', '--id', 'default', '--host', 'Main.Example.com')),
    ).toMatchObject({
      id: 'default',
      host: 'main.example.com',
    });
    const [taken, withPort, unknown] = await Promise.all([
      cli(url, 'tenant', 'set-host', '--id', 'other-co', '--host', 'main.example.com'),
      cli(url, 'tenant', 'set-host', '--id', 'default', '--host', 'acme.example.com:8080'),
      cli(url, 'tenant', 'set-host', '--id', 'nope', '--host', 'nope.example.com'),
    ]);
    failure(taken, 1, /another tenant has host "main.example.com"/);
    failure(withPort, 1, /is not a host name/);
    failure(unknown, 1, /tenant "nope" not found/);
    const hosts = await db
      .selectFrom('tenants')
      .select(['id', 'host'])
      .where('host', 'is not', null)
      .execute();
    expect(hosts).toEqual(
      expect.arrayContaining([
        { id: 'default', host: 'main.example.com' },
        { id: 'other-co', host: 'other.example.com' },
      ]),
    );
    expect(hosts).toHaveLength(2);
  });
});

describe.runIf(POSTGRES_URL)('casebook command line [postgres]', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createPostgresDatabase(POSTGRES_URL!);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('migrates, creates a user and a key that authenticates', async () => {
    const url = database.url;
    expect(json(await cli(url, 'migrate'))).toEqual({ applied: ALL_MIGRATIONS });
    const user = json(
      await cli(url, 'user', 'create', '--email', 'pg@example.com', '--name', 'Pg', '--role', 'test-runner'),
    );
    expect(user).toMatchObject({ email: 'pg@example.com', role: 'test-runner' });
    const created = await cli(url, 'key', 'create', '--email', 'pg@example.com', '--name', 'pg-key');
    const { key } = json(created);
    expect(await authenticateApiKey(database.db, 'default', key)).toMatchObject({
      ok: true,
      role: 'test-runner',
    });
  });

  it('creates a tenant with its owner, who can sign in, and sets its host', async () => {
    const url = database.url;
    const created = json(
      await cli(url, 'tenant', 'create', '--id', 'acme', '--name', 'Acme', '--owner-email', 'o@acme.example'),
    );
    expect(created.owner).toMatchObject({ role: 'owner', password: expect.any(String) });
    expect(
      await checkCredentials(database.db, 'acme', 'o@acme.example', created.owner.password),
    ).toMatchObject({ role: 'owner' });
    expect(
      json(await cli(url, 'tenant', 'set-host', '--id', 'acme', '--host', 'acme.example')),
    ).toMatchObject({
      host: 'acme.example',
    });
  });
});

describe('casebook serve, stopped while it starts', () => {
  it('exits 0 without listening on a SIGTERM that comes before it listens (node as PID 1 would ignore it)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-early-stop-'));
    try {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        CASEBOOK_DATA_DIR: dataDir,
        CASEBOOK_LOG_LEVEL: 'silent',
      };
      delete env.CASEBOOK_DATABASE_URL;
      const child = spawn(process.execPath, [...cliArgs(), 'serve', '--port', '0', '--host', '127.0.0.1'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const exited = once(child, 'exit');
      // Signalled once it has the database open (its handlers are in place by then), while it migrates.
      const fds = `/proc/${child.pid}/fd`;
      const opened = () =>
        fs.readdirSync(fds).some((fd) => {
          try {
            return fs.readlinkSync(path.join(fds, fd)).endsWith('casebook.db');
          } catch {
            return false;
          }
        });
      for (const until = Date.now() + 30_000; child.exitCode === null && !opened() && Date.now() < until;) {
        await new Promise((r) => setTimeout(r, 10));
      }
      child.kill('SIGTERM');
      const [code, signal] = await exited;
      expect({ code, signal }, out).toEqual({ code: 0, signal: null });
      expect(out).toContain('stopped before it listened');
      expect(out).not.toContain('Casebook is ready');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
