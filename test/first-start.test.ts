import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../src/db/create-db.js';
import { open } from '../src/lib/secret-box.js';
import { cliArgs } from './helpers/cli-command.js';
import { readSavedCredentials } from './helpers/first-start.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Server {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  address: string;
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `casebook serve` as a real process; resolves once it logged "casebook listening", or rejects when it exits first. */
function spawnServe(env: Record<string, string>): { child: ChildProcess; ready: Promise<Server> } {
  const child = spawn(process.execPath, [...cliArgs(), 'serve'], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', CASEBOOK_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const ready = new Promise<Server>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const entry = JSON.parse(line);
          if (entry.msg === 'casebook listening') {
            resolve({ child, stdout: () => out, stderr: () => err, address: entry.address, exited });
          }
        } catch {
          // a partial line: wait for the rest.
        }
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    void exited.then((code) =>
      reject(new Error(`serve exited with ${code} before listening:\n${out}\n${err}`)),
    );
  });
  return { child, ready };
}

/** Sends SIGTERM and answers the exit code. */
async function stop(server: Server): Promise<number | null> {
  server.child.kill('SIGTERM');
  return server.exited;
}

const banners = (stdout: string) => stdout.split('Casebook is ready').length - 1;

/** A webhook with a signing secret, made with the API key the first start saved in `dataDir`: a secret to seal. */
async function createSignedWebhook(address: string, dataDir: string): Promise<void> {
  const apiKey = readSavedCredentials(dataDir)!.key;
  const res = await fetch(`${address}/api/public/v0/webhook`, {
    method: 'POST',
    headers: { authorization: `ApiKey ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'CI',
      endpoint: 'https://hooks.example.com/ci',
      eventTypes: ['run_created'],
      secret: 'webhook-signing-secret',
    }),
  });
  expect(res.status).toBe(201);
}

describe('first start of the real server (SQLite)', { timeout: 180_000 }, () => {
  let dir: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-first-'));
  });
  afterEach(() => {
    // A failed assertion must not leave a server behind.
    for (const child of running) child.kill('SIGKILL');
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('saves the generated password and a working key to a 0600 file the banner names, never to its log, exits 0 on SIGTERM, and prints no banner on restart', async () => {
    const url = `sqlite:${path.join(dir, 'generated.db')}`;
    const port = await freePort();
    const server = await spawnServe({
      CASEBOOK_DATABASE_URL: url,
      CASEBOOK_DATA_DIR: dir,
      PORT: String(port),
    }).ready;
    const out = server.stdout();
    expect(banners(out)).toBe(1);
    expect(server.address).toBe(`http://127.0.0.1:${port}`);
    const file = path.join(dir, 'first-start-credentials.txt');
    // Standard output here is a pipe, as a container's or a service manager's log is: the secrets stay in the file.
    expect(out).toContain(`Password and API key: in ${file}`);
    expect(out).toContain('E-mail:   owner@casebook.local');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const saved = readSavedCredentials(dir)!;
    expect(saved.email).toBe('owner@casebook.local');
    expect(saved.password).toMatch(/^[\w-]{12,}$/);
    const key = saved.key;
    expect(key).toMatch(/^default\.\w+\.\S+$/);
    expect(out + server.stderr()).not.toContain(key);
    expect(out + server.stderr()).not.toContain(saved.password);

    const signIn = await fetch(`${server.address}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: saved.email, password: saved.password }),
    });
    expect(signIn.status).toBe(200);
    const res = await fetch(`${server.address}/api/public/v0/project`, {
      headers: { authorization: `ApiKey ${key}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ projects: [] });
    expect(await stop(server)).toBe(0);
    expect(server.stdout()).toContain('shutting down');

    const again = await spawnServe({
      CASEBOOK_DATABASE_URL: url,
      CASEBOOK_DATA_DIR: dir,
      PORT: String(await freePort()),
    }).ready;
    expect(banners(again.stdout())).toBe(0);
    const still = await fetch(`${again.address}/api/public/v0/project`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(still.status).toBe(200);
    expect(await stop(again)).toBe(0);
    expect(banners(again.stdout())).toBe(0);
  });

  it('prints the banner only once the server answers', async () => {
    const port = await freePort();
    const { child, ready } = spawnServe({
      CASEBOOK_DATABASE_URL: `sqlite:${path.join(dir, 'answers.db')}`,
      CASEBOOK_DATA_DIR: dir,
      PORT: String(port),
    });
    // Asked the moment the banner shows, as a person who reads it and opens the address would.
    let seen = '';
    const askedAtBanner = new Promise<number>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        const before = seen;
        seen += chunk.toString();
        if (!before.includes('Casebook is ready') && seen.includes('Casebook is ready')) {
          fetch(`http://127.0.0.1:${port}/healthz`).then((r) => resolve(r.status), reject);
        }
      });
    });
    const server = await ready;
    expect(await askedAtBanner).toBe(200);
    expect(await stop(server)).toBe(0);
  });

  it('shows the owner it created, once, when the port is taken, and exits 1', async () => {
    const url = `sqlite:${path.join(dir, 'port-taken.db')}`;
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const { ready, child } = spawnServe({
        CASEBOOK_DATABASE_URL: url,
        CASEBOOK_DATA_DIR: dir,
        PORT: String(port),
      });
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await expect(ready).rejects.toThrow(/exited with 1 [\s\S]*EADDRINUSE/);
      expect(out).toContain('Casebook did not start (see why below), but it created its owner');
      expect(out).not.toContain('Casebook is ready');
      expect(out).toContain('Password and API key: in');
      expect(readSavedCredentials(dir)!.key).toMatch(/^default\./);
    } finally {
      taken.close();
    }

    // The credentials were shown; the next start has its owner and says nothing more.
    const again = await spawnServe({
      CASEBOOK_DATABASE_URL: url,
      CASEBOOK_DATA_DIR: dir,
      PORT: String(await freePort()),
    }).ready;
    expect(again.stdout()).not.toContain('Password');
    expect(await stop(again)).toBe(0);
  });

  it('takes the owner from CASEBOOK_OWNER_EMAIL and CASEBOOK_OWNER_PASSWORD and never prints that password', async () => {
    const url = `sqlite:${path.join(dir, 'from-env.db')}`;
    const server = await spawnServe({
      CASEBOOK_DATABASE_URL: url,
      CASEBOOK_DATA_DIR: dir,
      PORT: String(await freePort()),
      CASEBOOK_OWNER_EMAIL: 'Boss@Example.com',
      CASEBOOK_OWNER_PASSWORD: 'correct horse battery',
    }).ready;
    const out = server.stdout();
    expect(banners(out)).toBe(1);
    expect(out).toContain('E-mail:   Boss@Example.com');
    expect(out).toContain('Password: (from CASEBOOK_OWNER_PASSWORD)');
    expect(out).toContain(`API key:  in ${path.join(dir, 'first-start-credentials.txt')}`);
    expect(readSavedCredentials(dir)).toMatchObject({
      email: 'Boss@Example.com',
      password: '(from CASEBOOK_OWNER_PASSWORD)',
    });
    expect(out + server.stderr()).not.toContain('correct horse battery');
    expect(await stop(server)).toBe(0);

    const db = createDb(url);
    try {
      const owners = await db.selectFrom('users').select(['email', 'role', 'password_hash']).execute();
      expect(owners).toEqual([
        { email: 'Boss@Example.com', role: 'owner', password_hash: expect.stringMatching(/^scrypt\$/) },
      ]);
    } finally {
      await db.destroy();
    }
  });

  it('refuses to start with an invalid setting, naming it, with a non-zero exit', async () => {
    const { ready, child } = spawnServe({
      CASEBOOK_DATABASE_URL: `sqlite:${path.join(dir, 'never.db')}`,
      CASEBOOK_DATA_DIR: dir,
      PORT: 'abc',
    });
    await expect(ready).rejects.toThrow(/exited with 1 [\s\S]*PORT must be a whole number, got/);
    expect(child.exitCode).toBe(1);
    expect(fs.existsSync(path.join(dir, 'never.db'))).toBe(false);
  });
});

// Each test starts real server processes (and the race below compiles the sources with tsx): minutes, not seconds,
// when CI's other test file is busy on the same two cores.
describe('the secret key without CASEBOOK_SECRET_KEY (SQLite)', { timeout: 180_000 }, () => {
  let dir: string;
  let keyFile: string;
  let url: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-key-'));
    keyFile = path.join(dir, 'secret.key');
    url = `sqlite:${path.join(dir, 'casebook.db')}`;
  });
  afterEach(() => {
    for (const child of running) child.kill('SIGKILL');
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const serveHere = async (env: Record<string, string> = {}) =>
    spawnServe({
      CASEBOOK_DATABASE_URL: url,
      CASEBOOK_DATA_DIR: dir,
      CASEBOOK_SECRET_KEY: '',
      PORT: String(await freePort()),
      ...env,
    });

  it('generates a 0600 key file on first start, says to back it up apart from the database, and seals webhook secrets with it', async () => {
    const server = await (await serveHere()).ready;
    const out = server.stdout();
    expect(banners(out)).toBe(1);
    expect(out).toContain(`Secret key: generated into ${keyFile}`);
    expect(out).toMatch(/Back it up now, and keep it apart from the database backups/);
    expect(out).toMatch(/Several machines:\s+set CASEBOOK_SECRET_KEY to one value on every instance/);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = fs.readFileSync(keyFile, 'utf8').trim();
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    await createSignedWebhook(server.address, dir);
    expect(await stop(server)).toBe(0);

    const db = createDb(url);
    try {
      const row = await db.selectFrom('webhooks').select('secret_enc').executeTakeFirstOrThrow();
      expect(open(row.secret_enc!, key, 'casebook:webhook-secrets:v1')).toBe('webhook-signing-secret');
    } finally {
      await db.destroy();
    }

    // A restart reads the same key and says nothing more about it.
    const again = await (await serveHere()).ready;
    expect(again.stdout()).not.toContain('Secret key');
    expect(fs.readFileSync(keyFile, 'utf8').trim()).toBe(key);
    expect(await stop(again)).toBe(0);
  });

  it('refuses to start, saying which key and what to do, when the key is not the one the database was sealed with', async () => {
    const right = fs.readFileSync(keyFile, 'utf8');

    const fromEnv = await serveHere({ CASEBOOK_SECRET_KEY: 'another-key-0123456789' });
    await expect(fromEnv.ready).rejects.toThrow(
      /exited with 1[\s\S]*secret key from CASEBOOK_SECRET_KEY does not open this database's secrets[\s\S]*Restore [\s\S]*or set CASEBOOK_SECRET_KEY to the key the database was sealed with/,
    );

    fs.writeFileSync(keyFile, 'a-key-from-some-other-install-000000000000\n', { mode: 0o600 });
    const fromFile = await serveHere();
    await expect(fromFile.ready).rejects.toThrow(
      new RegExp(
        `exited with 1[\\s\\S]*the key file ${keyFile} \\(used because CASEBOOK_SECRET_KEY is not set\\) does not open`,
      ),
    );

    // The key file lost with the data directory: no new key is left behind to be mistaken for the right one.
    fs.rmSync(keyFile);
    await expect((await serveHere()).ready).rejects.toThrow(/exited with 1[\s\S]*Restore /);
    expect(fs.existsSync(keyFile)).toBe(false);

    fs.writeFileSync(keyFile, right, { mode: 0o600 });
    const restored = await (await serveHere()).ready;
    expect(await stop(restored)).toBe(0);
  });

  it('refuses an upgraded database whose secrets were sealed under another key, before it has a check value', async () => {
    const upgradeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-key-upgrade-'));
    const upgradeUrl = `sqlite:${path.join(upgradeDir, 'casebook.db')}`;
    const upgradeKeyFile = path.join(upgradeDir, 'secret.key');
    const oldKey = 'the-key-of-the-old-version-0123456789';
    const serveUpgrade = async (key: string) =>
      spawnServe({
        CASEBOOK_DATABASE_URL: upgradeUrl,
        CASEBOOK_DATA_DIR: upgradeDir,
        CASEBOOK_SECRET_KEY: key,
        PORT: String(await freePort()),
      });
    const checkValues = async () => {
      const db = createDb(upgradeUrl);
      try {
        // The key's check value only: migrating also records which code the schema serves (schema_compatible_from).
        return await db
          .selectFrom('instance_settings')
          .select('name')
          .where('name', '=', 'secret_key_check')
          .execute();
      } finally {
        await db.destroy();
      }
    };
    try {
      // A webhook secret sealed under the old key, and no check value: what a version before the check left.
      const old = await (await serveUpgrade(oldKey)).ready;
      await createSignedWebhook(old.address, upgradeDir);
      expect(await stop(old)).toBe(0);
      const db = createDb(upgradeUrl);
      try {
        await db.deleteFrom('instance_settings').execute();
      } finally {
        await db.destroy();
      }

      // Upgraded and started without the variable: no key is generated into use, nothing is written.
      await expect((await serveUpgrade('')).ready).rejects.toThrow(
        new RegExp(
          `exited with 1[\\s\\S]*The secret key from the key file ${upgradeKeyFile} \\(used because CASEBOOK_SECRET_KEY ` +
            "is not set\\) does not open this database's secrets: a webhook secret stored there was sealed with another " +
            'key[\\s\\S]*set CASEBOOK_SECRET_KEY to the key the existing secrets were sealed with',
        ),
      );
      expect(fs.existsSync(upgradeKeyFile)).toBe(false);
      expect(await checkValues()).toEqual([]);

      // Started with a changed variable: the same refusal, naming it.
      await expect((await serveUpgrade('a-changed-key-0123456789')).ready).rejects.toThrow(
        /exited with 1[\s\S]*The secret key from CASEBOOK_SECRET_KEY does not open this database's secrets: a webhook secret/,
      );
      expect(await checkValues()).toEqual([]);

      // With the old key it starts, and from now on the check value guards it.
      const restored = await (await serveUpgrade(oldKey)).ready;
      expect(await stop(restored)).toBe(0);
      expect(await checkValues()).toEqual([{ name: 'secret_key_check' }]);
    } finally {
      fs.rmSync(upgradeDir, { recursive: true, force: true });
    }
  });

  it('gives processes that start together one key: one creates the file, the others read it', async () => {
    const raceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-key-race-'));
    try {
      const startAt = Date.now() + 4000;
      // Each process loads the module first, then waits for the same moment before it looks for the key file.
      const script = `
        import { resolveSecretKey } from ${JSON.stringify(path.join(ROOT, 'src/secret-key.ts'))};
        while (Date.now() < ${startAt});
        const s = resolveSecretKey({ secretKey: '', dataDir: ${JSON.stringify(raceDir)} });
        process.stdout.write(JSON.stringify({ key: s.key, created: s.created }));
      `;
      const outputs = await Promise.all(
        Array.from(
          { length: 4 },
          () =>
            new Promise<string>((resolve, reject) => {
              const child = spawn(
                process.execPath,
                ['--import', 'tsx', '--input-type=module', '-e', script],
                {
                  cwd: ROOT,
                  stdio: ['ignore', 'pipe', 'inherit'],
                },
              );
              let out = '';
              child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
              child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
            }),
        ),
      );
      const results = outputs.map((o) => JSON.parse(o) as { key: string; created: boolean });
      expect(new Set(results.map((r) => r.key)).size).toBe(1);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(fs.readFileSync(path.join(raceDir, 'secret.key'), 'utf8').trim()).toBe(results[0].key);
      expect(fs.statSync(path.join(raceDir, 'secret.key')).mode & 0o777).toBe(0o600);
      expect(fs.readdirSync(raceDir)).toEqual(['secret.key']);
    } finally {
      fs.rmSync(raceDir, { recursive: true, force: true });
    }
  });
});
