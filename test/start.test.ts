import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dirs: string[] = [];
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

/** True when nothing listens on the port any more: this process can listen on it itself. */
async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** `npm start` as the README says, on its own port and data directory; resolves once /healthz answers. */
async function npmStart() {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-start-'));
  dirs.push(dataDir);
  const child = spawn('npm', ['start', '--silent', '--', '--port', String(port), '--host', '127.0.0.1'], {
    cwd: ROOT,
    env: { ...process.env, CASEBOOK_DATA_DIR: dataDir, CASEBOOK_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  // A first start may build the server (tens of seconds on a busy machine).
  for (let i = 0; ; i++) {
    if (gone) throw new Error(`npm start exited before serving:\n${stderr}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 900) throw new Error(`npm start did not serve within 180 s:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, port, exited, stderr: () => stderr };
}

afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('stops when the npm process gets SIGTERM or SIGINT, releasing the port, and does not rebuild what did not change', async () => {
    const first = await npmStart();
    // The signal goes to npm's own pid, as `kill <pid of npm start>` does; the server must not outlive it.
    first.child.kill('SIGTERM');
    expect((await first.exited).code).not.toBeNull();
    expect(await portIsFree(first.port)).toBe(true);

    // Nothing changed since the first start built (if it had to): the second starts without building.
    const second = await npmStart();
    expect(second.stderr()).not.toContain('building');
    second.child.kill('SIGINT');
    expect((await second.exited).code).not.toBeNull();
    expect(await portIsFree(second.port)).toBe(true);
  }, 240_000);
});

describe('npm start on a fresh clone', () => {
  it('says what it builds and how far along, then prints the banner once the server answers', async () => {
    // The working tree's files as a clone has them, with this checkout's packages: nothing built yet.
    const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-clone-'));
    dirs.push(clone);
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\0')
      .filter((f) => f && fs.existsSync(path.join(ROOT, f)));
    for (const file of files) {
      fs.mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
      fs.copyFileSync(path.join(ROOT, file), path.join(clone, file));
    }
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
    expect(fs.existsSync(path.join(clone, 'dist'))).toBe(false);

    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-start-'));
    dirs.push(dataDir);
    const child = spawn('npm', ['start', '--silent', '--', '--port', String(port), '--host', '127.0.0.1'], {
      cwd: clone,
      env: { ...process.env, CASEBOOK_DATA_DIR: dataDir, CASEBOOK_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // Asked the moment the banner shows, as a person who reads it and opens the address would.
    const askedAtBanner = new Promise<number>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        const before = stdout;
        stdout += chunk.toString();
        if (!before.includes('Casebook is ready') && stdout.includes('Casebook is ready')) {
          fetch(`http://127.0.0.1:${port}/healthz`).then((r) => resolve(r.status), reject);
        }
      });
      void exited.then((code) => reject(new Error(`npm start exited (${code}):\n${stderr}\n${stdout}`)));
    });
    expect(await askedAtBanner).toBe(200);

    // Two lines, one per build, each saying what, how far along it got (quarters, not a terminal) and how long.
    const lines = stderr.split('\n').filter(Boolean);
    expect(lines, stderr).toEqual([
      expect.stringMatching(/^casebook: building the server \(TypeScript\)… done in \d+ s$/),
      expect.stringMatching(
        /^casebook: building the web application \(Vite\)…( 25%)?( 50%)?( 75%)? done in \d+ s$/,
      ),
    ]);
    expect(lines[1]).toMatch(/%/);
    // The log has each request once, probes left to the debug level (docs/operations.md, "Logs"): the API request
    // asked here, and not the /healthz above (a line is written once its request was answered).
    await fetch(`http://127.0.0.1:${port}/api/public/v0/project`).then((r) => r.arrayBuffer());
    for (let i = 0; !stdout.includes('request completed'); i++) {
      if (i > 600) throw new Error(`no request in the log:\n${stdout}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const requests = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .filter((l) => l.req);
    expect(requests.map((l) => [l.msg, l.req.url, l.res.statusCode])).toEqual([
      ['request completed', '/api/public/v0/project', 401],
    ]);

    child.kill('SIGTERM');
    expect(await exited).not.toBeNull();
  }, 300_000);
});
