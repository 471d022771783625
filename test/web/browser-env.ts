import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { mtime, newestMtime } from '../helpers/cli-command.js';
import { createPostgresDatabase, POSTGRES_URL } from '../helpers/databases.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
export const SCREENSHOTS = path.join(ROOT, 'test-results', 'screenshots');

export const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };

/**
 * The tests drive what `npm start` serves: the built server and the built web application. CI builds
 * before testing; locally a missing or older-than-its-sources build is rebuilt here.
 */
export function ensureBuilt(): void {
  // The server's sources as the build sees them: its tests are not built (scripts/start.mjs skips them).
  const server = Math.max(
    mtime(path.join(ROOT, 'dist/cli/main.js')),
    mtime(path.join(ROOT, 'dist/.build-stamp')),
  );
  // The build skips the web application when its own sources did not change (scripts/start.mjs keeps a stamp):
  // each half is compared with its own sources, or a server-only change would look like a stale web build to every
  // test file, each rebuilding at once.
  const web = Math.max(
    mtime(path.join(ROOT, 'web/dist/index.html')),
    mtime(path.join(ROOT, 'web/dist/.build-stamp')),
  );
  const webSources = Math.max(
    newestMtime(path.join(ROOT, 'web/src')),
    mtime(path.join(ROOT, 'web/index.html')),
    mtime(path.join(ROOT, 'web/vite.config.ts')),
  );
  const serverSources = newestMtime(path.join(ROOT, 'src'), (name) => !name.endsWith('.test.ts'));
  if (server >= serverSources && web >= webSources) return;
  console.log('[casebook] browser tests: building the server and the web application (npm run build)');
  // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
  execFileSync('npm', ['run', 'build', '--silent'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningService {
  baseUrl: string;
  stop: () => Promise<void>;
}

/** A real server process (built server + built web) on a free loopback port over SQLite in a temp dir. */
export async function startService(env: Record<string, string> = {}): Promise<RunningService> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-browser-'));
  const baseUrl = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, ['dist/cli/main.js', 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      CASEBOOK_DATA_DIR: dataDir,
      CASEBOOK_DATABASE_URL: `sqlite:${path.join(dataDir, 'casebook.db')}`,
      CASEBOOK_PUBLIC_URL: baseUrl,
      CASEBOOK_OWNER_EMAIL: OWNER.email,
      CASEBOOK_OWNER_PASSWORD: OWNER.password,
      CASEBOOK_SECRET_KEY: 'browser-test-secret-key-0123456789',
      CASEBOOK_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  // Generous: CI runs two test files at a time on two cores, and a start may meet the other's busiest moment.
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server did not start in 90 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type BrowserTarget = 'sqlite' | 'postgres';

/**
 * The databases a walk through the pages runs on. The pages only call the API, and every API test runs on both
 * databases, so a walk runs once: on `prefer` (PostgreSQL only when CASEBOOK_TEST_POSTGRES_URL is set, else
 * SQLite). The walks whose pages lean on what the two databases do differently (search, sorting, the run list's
 * JSON that each database builds in its own way) prefer PostgreSQL; the rest SQLite, the default installation.
 * CASEBOOK_BROWSER_DATABASES=both runs every walk on both (before a change to a query that a page shows).
 */
export function browserTargets(prefer: BrowserTarget): readonly BrowserTarget[] {
  if (!POSTGRES_URL) return ['sqlite'];
  if (process.env.CASEBOOK_BROWSER_DATABASES === 'both') return ['sqlite', 'postgres'];
  return [prefer];
}

/** startService on `target`: on PostgreSQL over a database of its own, dropped when the service stops. */
export async function startServiceOn(
  target: BrowserTarget,
  env: Record<string, string> = {},
): Promise<RunningService> {
  if (target === 'sqlite') return startService(env);
  const database = await createPostgresDatabase(POSTGRES_URL!);
  const service = await startService({ CASEBOOK_DATABASE_URL: database.url, ...env });
  return {
    baseUrl: service.baseUrl,
    stop: async () => {
      await service.stop();
      await database.drop();
    },
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

const AXE_SOURCE = fs.readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string }[];
}

/** axe-core run in the page (evaluated by the driver, so the page's CSP need not allow it). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<any> } }).axe;
    // React Aria's announcer is an off-screen live region whose transient nodes point at the element being
    // announced, which may be gone (a closed dialog) before the node expires: not part of the page.
    const result = await axe.run({ exclude: [['[data-live-announcer]']] } as unknown as Document, {
      resultTypes: ['violations'],
    });
    return result.violations as AxeViolation[];
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

/**
 * Looks at the page at both sizes (and in dark at desktop size when asked): saves a screenshot of each
 * (test-results/screenshots/<name>-<size>.png) and runs axe-core in each; returns the serious and critical
 * violations, named by size. Ends light, at desktop size.
 */
export async function inspect(page: Page, name: string, options: { dark?: boolean } = {}): Promise<string[]> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const found: string[] = [];
  const looks: [string, { width: number; height: number }, 'light' | 'dark'][] = Object.entries(
    VIEWPORTS,
  ).map(([size, viewport]) => [size, viewport, 'light']);
  // Dark follows the system: checked (contrast included) at desktop size where asked.
  if (options.dark) looks.push(['desktop-dark', VIEWPORTS.desktop, 'dark']);
  for (const [size, viewport, colorScheme] of looks) {
    await page.emulateMedia({ colorScheme });
    await page.setViewportSize(viewport);
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${size}.png`) });
    for (const v of await seriousViolations(page)) {
      found.push(
        `${name} at ${size}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => n.html.slice(0, 160)).join(', ')}`,
      );
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(VIEWPORTS.desktop);
  return found;
}

export interface Account {
  email: string;
  password: string;
}

/**
 * Fills the sign-in form the page shows with the account's credentials (the owner's unless told) and submits it;
 * what follows (the projects page, an error, a second factor, the page one was going to) is the caller's to wait for.
 */
export async function submitSignIn(page: Page, account: Account = OWNER): Promise<void> {
  await page.getByLabel('E-mail').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Signs the page's context in through the sign-in page, as the owner unless another account is given, and waits
 * for the projects page.
 */
export async function signIn(page: Page, baseUrl: string, account: Account = OWNER): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await submitSignIn(page, account);
  await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * The public API with the page's session (as the application calls it: same origin, D4): the response whatever
 * its status, for tests that check the status or an error. `sessionApi` is the same for calls that must succeed.
 */
export function sessionFetch(page: Page, baseUrl: string) {
  return (method: Method, path: string, data?: unknown) =>
    page.request.fetch(`${baseUrl}/api/public/v0${path}`, {
      method,
      headers: { origin: baseUrl, 'content-type': 'application/json' },
      data: data === undefined ? undefined : JSON.stringify(data),
    });
}
export type SessionFetch = ReturnType<typeof sessionFetch>;

/**
 * The public API with the page's session (as the application calls it: same origin, D4): the parsed body of a
 * 2xx answer; any other answer throws with its body.
 */
export function sessionApi(page: Page, baseUrl: string) {
  const call = sessionFetch(page, baseUrl);
  return async (method: Method, path: string, data?: unknown) => {
    const res = await call(method, path, data);
    if (res.status() >= 300) throw new Error(`${method} ${path}: ${res.status()} ${await res.text()}`);
    return res.json();
  };
}
export type SessionApi = ReturnType<typeof sessionApi>;
