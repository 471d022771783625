import { spawn, type ChildProcess } from 'node:child_process';
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
