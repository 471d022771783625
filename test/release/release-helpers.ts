import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { parseCredentials, type SavedCredentials } from '../helpers/first-start.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The npm that runs this test's node (the one scripts/node-env.sh put first on the path). */
export function npm(args: string[], cwd: string, env: Record<string, string> = {}): string {
  return execFileSync('npm', args, {
    cwd,
    env: { ...process.env, ...env, NO_COLOR: '1', npm_config_update_notifier: 'false' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * `npm pack` into `dest`: the release tarball. Its `prepack` builds (`npm run build`, skipped when its stamps are
 * current) and writes npm-shrinkwrap.json; here the build CI made before the tests is reused — the one the browser
 * tests serve, which a rebuild would replace under them — so the pack runs with --ignore-scripts and this does
 * the prepack's other half. Without a build, it builds once first (about two minutes).
 */
export function packRelease(dest: string): string {
  // The tarball's and the image's files pack side by side: one at a time, or one would remove the other's
  // npm-shrinkwrap.json (or build while the other builds).
  return withLock(
    path.join(
      os.tmpdir(),
      `casebook-pack-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`,
    ),
    () => {
      const built = ['dist/cli/main.js', 'web/dist/index.html'].every((f) =>
        fs.existsSync(path.join(ROOT, f)),
      );
      if (!built) npm(['run', 'build', '--silent'], ROOT);
      const shrinkwrap = path.join(ROOT, 'npm-shrinkwrap.json');
      fs.copyFileSync(path.join(ROOT, 'package-lock.json'), shrinkwrap);
      try {
        const out = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dest], ROOT);
        const [{ filename }] = JSON.parse(out) as { filename: string }[];
        return path.join(dest, filename);
      } finally {
        fs.rmSync(shrinkwrap, { force: true });
      }
    },
  );
}

/** Runs `fn` holding `lock` (a file made exclusively); one left by a run that died is taken after 5 minutes. */
function withLock<T>(lock: string, fn: () => T): T {
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) fs.rmSync(lock, { force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 200 or `seconds` pass; `alive` says whether it is worth waiting longer. */
export async function waitForHealth(url: string, seconds: number, alive: () => boolean = () => true) {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until && alive()) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer 200 within ${seconds} s`);
}

/**
 * The owner's credentials of a first start: its log names the file they were saved in (a service's output is a log,
 * not a terminal), and `read` answers that file's text (from the data folder, or inside the container).
 */
export function savedCredentials(log: string, read: (file: string) => string): SavedCredentials {
  expect(log).toContain('Casebook is ready');
  const file = /Saved in: (\S+)/.exec(log)?.[1];
  expect(file, log).toBeDefined();
  // The log never holds what the file holds.
  const saved = parseCredentials(read(file!));
  expect(log).not.toContain(saved.key);
  return saved;
}

/**
 * What a first visit does: signs the owner in (a session, as the web application does), then with the printed
 * API key creates a project, a case and a run, and records a result. Answers what a later start must still show.
 */
export async function signInAndRecordResult(
  base: string,
  owner: { email: string; password: string; key: string },
): Promise<{ project: string; run: number; result: number }> {
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: owner.email, password: owner.password }),
  });
  expect(login.status).toBe(200);
  expect(((await login.json()) as { token: string }).token.length).toBeGreaterThanOrEqual(40);

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${base}/api/public/v0${url}`, {
      method,
      headers: { authorization: `ApiKey ${owner.key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(json)).toBeLessThan(300);
    return json as Record<string, never>;
  };
  await api('POST', '/project', { code: 'REL', title: 'Release check' });
  const bulk = await api('POST', '/project/REL/tcase/bulk', {
    folderPath: ['Install'],
    tcases: [{ title: 'Starts from the release', tags: [] }],
  });
  const tcase = (bulk.tcases as { id: string }[])[0].id;
  const run = await api('POST', '/project/REL/run', {
    title: 'Release',
    type: 'static_struct',
    queryPlans: [{ tcaseIds: [tcase] }],
  });
  const result = await api('POST', `/project/REL/run/${run.id}/tcase/${tcase}/result`, { status: 'passed' });
  return { project: 'REL', run: run.id as number, result: result.id as number };
}

/** The projects the key sees: after a restart on the same data, the one made before is still there. */
export async function projectCodes(base: string, key: string): Promise<string[]> {
  const res = await fetch(`${base}/api/public/v0/project`, { headers: { authorization: `ApiKey ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { projects: { code: string }[] }).projects.map((p) => p.code);
}

/** Whether `command` runs here (`command --version` exits 0). */
export function available(command: string): boolean {
  return spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
}
