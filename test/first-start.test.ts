import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../src/db/create-db.js';

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
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'serve'], {
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

describe('first start of the real server (SQLite)', () => {
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

  it('prints the banner once with a generated password and a working key, exits 0 on SIGTERM, and prints no banner on restart', async () => {
    const url = `sqlite:${path.join(dir, 'generated.db')}`;
    const port = await freePort();
    const server = await spawnServe({ CASEBOOK_DATABASE_URL: url, PORT: String(port) }).ready;
    const out = server.stdout();
    expect(banners(out)).toBe(1);
    expect(server.address).toBe(`http://127.0.0.1:${port}`);
    const password = /Password: (\S+)/.exec(out)?.[1];
    expect(password).toMatch(/^[\w-]{12,}$/);
    const key = /API key: +(\S+)/.exec(out)?.[1];
    expect(key).toMatch(/^default\.\w+\.\S+$/);
    expect(out).toContain('E-mail:   owner@casebook.local');
    // The key is in the banner exactly where it is meant to be, never in the log lines.
    expect(out.split('\n').filter((l) => l.startsWith('{') && l.includes(key!))).toEqual([]);

    const res = await fetch(`${server.address}/api/public/v0/project`, {
      headers: { authorization: `ApiKey ${key}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ projects: [] });
    expect(await stop(server)).toBe(0);
    expect(server.stdout()).toContain('shutting down');

    const again = await spawnServe({ CASEBOOK_DATABASE_URL: url, PORT: String(await freePort()) }).ready;
    expect(banners(again.stdout())).toBe(0);
    const still = await fetch(`${again.address}/api/public/v0/project`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(still.status).toBe(200);
    expect(await stop(again)).toBe(0);
    expect(banners(again.stdout())).toBe(0);
  });

  it('takes the owner from CASEBOOK_OWNER_EMAIL and CASEBOOK_OWNER_PASSWORD and never prints that password', async () => {
    const url = `sqlite:${path.join(dir, 'from-env.db')}`;
    const server = await spawnServe({
      CASEBOOK_DATABASE_URL: url,
      PORT: String(await freePort()),
      CASEBOOK_OWNER_EMAIL: 'Boss@Example.com',
      CASEBOOK_OWNER_PASSWORD: 'correct horse battery',
    }).ready;
    const out = server.stdout();
    expect(banners(out)).toBe(1);
    expect(out).toContain('E-mail:   Boss@Example.com');
    expect(out).toContain('Password: (from CASEBOOK_OWNER_PASSWORD)');
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
      PORT: 'abc',
    });
    await expect(ready).rejects.toThrow(/exited with 1 [\s\S]*PORT must be a whole number, got/);
    expect(child.exitCode).toBe(1);
    expect(fs.existsSync(path.join(dir, 'never.db'))).toBe(false);
  });
});
