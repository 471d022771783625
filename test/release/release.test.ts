import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  savedCredentials,
  freePort,
  npm,
  packRelease,
  projectCodes,
  signInAndRecordResult,
  waitForHealth,
} from './release-helpers.js';

/**
 * The release artefact (docs/operations.md, "Install"): `npm pack` gives a tarball with the built server and web
 * application and the release's lock file; unpacked into an empty folder, `npm ci --omit=dev` installs what it
 * runs on — here from npm's cache alone (--offline: CI's `npm ci` filled it) — and `npx casebook serve` starts it
 * with no clone and no build. The container image (./image.test.ts, beside this file so that the two run at once)
 * is built from such a tarball too.
 *
 * Node.js 24 only: CI's Node.js 22 pass (`npm run test:server`) leaves test/release out.
 */
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

let dir: string;
let tarball: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-release-'));
  tarball = packRelease(dir);
}, 600_000);
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('the release tarball', { timeout: 300_000 }, () => {
  let app: string;
  let server: ChildProcess | undefined;

  afterAll(() => {
    if (server?.exitCode === null) process.kill(-server.pid!, 'SIGKILL');
  });

  it('holds the built server and web application, the changelog and the lock file, and no sources', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    for (const file of [
      'dist/cli/main.js',
      'dist/db/migrations/index.js',
      'web/dist/index.html',
      'npm-shrinkwrap.json',
      'CHANGELOG.md',
      'README.md',
    ]) {
      expect(files).toContain(`package/${file}`);
    }
    expect(
      files.filter((f) => /^package\/(src|test|web\/src|scripts)\//.test(f) || f.endsWith('.map')),
    ).toEqual([]);
    expect(path.basename(tarball)).toBe(`casebook-${VERSION}.tgz`);
  });

  it('installs into an empty folder from the npm cache alone, without development dependencies', () => {
    app = path.join(dir, 'casebook');
    fs.mkdirSync(app);
    execFileSync('tar', ['-xzf', tarball, '--strip-components=1', '-C', app]);
    npm(['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund'], app);
    expect(fs.existsSync(path.join(app, 'node_modules/fastify/package.json'))).toBe(true);
    expect(fs.existsSync(path.join(app, 'node_modules/vite'))).toBe(false);
    expect(fs.existsSync(path.join(app, 'node_modules/typescript'))).toBe(false);
    expect(npm(['exec', '--offline', '--', 'casebook', '--version'], app).trim()).toBe(VERSION);
  });

  it('starts with `npx casebook serve`, serves the web application, signs the owner in and records a result, and stops on SIGTERM', async () => {
    const port = await freePort();
    const data = path.join(dir, 'data');
    const env: Record<string, string> = { PATH: process.env.PATH!, HOME: process.env.HOME ?? dir };
    server = spawn('npx', ['--offline', 'casebook', 'serve'], {
      cwd: app,
      env: {
        ...env,
        HOST: '127.0.0.1',
        PORT: String(port),
        CASEBOOK_DATA_DIR: data,
        CASEBOOK_DRAIN_SECONDS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: npx runs node as its child, and the stop below signals both.
      detached: true,
    });
    let out = '';
    server.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // 'close', not 'exit': the pipes close when the server's node has ended too, not only npx.
    const closed = new Promise<void>((resolve) => server!.once('close', () => resolve()));

    const base = `http://127.0.0.1:${port}`;
    await waitForHealth(`${base}/healthz`, 60, () => server!.exitCode === null).catch((err: Error) => {
      throw new Error(`${err.message}\n${out}`);
    });
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');

    const owner = savedCredentials(out, (file) => fs.readFileSync(file, 'utf8'));
    // Readable by the service's user alone.
    expect(fs.statSync(path.join(data, 'first-start-credentials.txt')).mode & 0o777).toBe(0o600);
    await signInAndRecordResult(base, owner);
    expect(await projectCodes(base, owner.key)).toEqual(['REL']);
    // The SQLite database and the generated key are in the data folder given, not in the installed package.
    expect(fs.existsSync(path.join(data, 'casebook.db'))).toBe(true);
    expect(fs.existsSync(path.join(data, 'secret.key'))).toBe(true);

    // npm 11's npx ends at once on SIGTERM without waiting for its child (exit 143), so the signal goes to the
    // process group, as a terminal's Ctrl-C or a service manager's stop does; the server drains and closes.
    // docs/operations.md tells a service manager to start node itself (dist/cli/main.js) instead.
    process.kill(-server.pid!, 'SIGTERM');
    await closed;
    expect(out).toContain('shutting down');
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });
});
