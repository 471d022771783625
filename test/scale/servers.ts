import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createDb, type Db } from '../../src/db/create-db.js';
import type { Database } from '../../src/db/schema.js';
import { cliArgs } from '../helpers/cli-command.js';
import { createPostgresDatabase, POSTGRES_URL } from '../helpers/databases.js';
import { readSavedCredentials } from '../helpers/first-start.js';

/**
 * Real server processes for the scale tests: `casebook serve` (the build when it is current, else the sources with
 * tsx: helpers/cli-command.ts), listening on 127.0.0.1 only.
 */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const API = '/api/public/v0';

/** Every child process a test started, so an afterAll can make sure none outlives the test file. */
const running = new Set<ChildProcess>();

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

export interface ServerProcess {
  url: string;
  pid: number;
  /** stdout and stderr so far (the banner, warnings, errors): put it in assertion messages. */
  output: () => string;
  /** The API key this process's first start saved (its credentials file), when it made the owner. */
  bannerKey: () => string | undefined;
  /** SIGTERM, then the exit code. */
  stop: () => Promise<number | null>;
  /** SIGKILL: no shutdown code runs. */
  kill: () => Promise<void>;
  /** Resolves with the exit code when the process ends. */
  exited: Promise<number | null>;
  /** The process's children (the cluster's workers), from /proc. */
  childPids: () => number[];
}

export interface StartOptions {
  databaseUrl: string;
  dataDir: string;
  /** Worker processes (`--workers`); 1 serves from the process itself. */
  workers?: number;
  /** A free one when not given. */
  port?: number;
  /** `warn` unless given: request logs would cost more CPU than the requests. */
  logLevel?: string;
  /** More settings (CASEBOOK_METRICS_TOKEN, CASEBOOK_DRAIN_SECONDS: 0 unless given, so a stop is quick). */
  env?: Record<string, string>;
}

/** Starts `casebook serve` and resolves once `/readyz` answers 200 (the database answers too). */
export async function startServer(options: StartOptions): Promise<ServerProcess> {
  const server = await spawnServer(options);
  let gone: string | undefined;
  void server.exited.then((code) => (gone = String(code)));
  // Generous: CI runs other test files on the same two cores.
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (gone !== undefined)
      throw new Error(`server exited (${gone}) before it was ready:\n${server.output()}`);
    try {
      if ((await fetch(`${server.url}/readyz`)).ok) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await server.kill();
      throw new Error(`server did not become ready in 90 s:\n${server.output()}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Starts `casebook serve` without waiting for it. */
export async function spawnServer(options: StartOptions): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const child = spawn(
    process.execPath,
    [...cliArgs(), 'serve', '--host', '127.0.0.1', '--port', String(port)],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        CASEBOOK_DATABASE_URL: options.databaseUrl,
        CASEBOOK_DATA_DIR: options.dataDir,
        CASEBOOK_WORKERS: String(options.workers ?? 1),
        CASEBOOK_LOG_LEVEL: options.logLevel ?? 'warn',
        CASEBOOK_PUBLIC_URL: `http://127.0.0.1:${port}`,
        CASEBOOK_DRAIN_SECONDS: '0',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    exited,
    childPids: () => {
      try {
        return fs
          .readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map(Number);
      } catch {
        return [];
      }
    },
    pid: child.pid!,
    output: () => out,
    // The banner names the credentials file (stdout is no terminal here); it is read only when this start made an owner.
    bannerKey: () => (/Casebook is ready/.test(out) ? readSavedCredentials(options.dataDir)?.key : undefined),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Kills whatever a failed test left running (each child by its own pid). */
export function killLeftovers(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** Runs the CLI once (`casebook backup …`) and answers its exit code and output. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...cliArgs(), ...args], {
    cwd: ROOT,
    env: { ...process.env, CASEBOOK_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) =>
    child.once('exit', (c) => {
      running.delete(child);
      resolve(c);
    }),
  );
  return { code, stdout, stderr };
}

export interface ScaleDatabase {
  name: 'sqlite' | 'postgres';
  url: string;
  dataDir: string;
  /** A connection of the test itself, to read what the servers stored. */
  db: Db;
  drop: () => Promise<void>;
}

/** One fresh database: a SQLite file (shared by every process of the test) or a PostgreSQL database. */
export async function createScaleDatabase(name: 'sqlite' | 'postgres'): Promise<ScaleDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `casebook-scale-${name}-`));
  if (name === 'postgres') {
    const made = await createPostgresDatabase(POSTGRES_URL!);
    // Unused (it never connected): the test reads through a pool whose connections it can see closed. A pool's
    // end() resolves before its sockets close, and DROP DATABASE … WITH (FORCE) would then kill them mid-close.
    await made.db.destroy();
    const pool = new pg.Pool({ connectionString: made.url, max: 3 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      name,
      url: made.url,
      dataDir,
      db,
      drop: async () => {
        const open = pool.totalCount;
        let removed = 0;
        const closed = new Promise<void>((resolve) => {
          if (open === 0) resolve();
          pool.on('remove', () => {
            if (++removed >= open) resolve();
          });
        });
        await db.destroy();
        await Promise.race([closed, new Promise((r) => setTimeout(r, 5_000))]);
        await made.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const url = `sqlite:${path.join(dataDir, 'casebook.db')}`;
  // The servers create the schema; this connection only reads what they stored.
  const db = createDb(url);
  return {
    name,
    url,
    dataDir,
    db,
    drop: async () => {
      await db.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The databases the scale tests run on: SQLite always, PostgreSQL when CASEBOOK_TEST_POSTGRES_URL is set. */
export function scaleTargets(): Array<'sqlite' | 'postgres'> {
  return POSTGRES_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

export const POSTGRES_SKIP_NOTE =
  'PostgreSQL half SKIPPED: set CASEBOOK_TEST_POSTGRES_URL (or run .ci/run) to run the scale tests on PostgreSQL too';

export interface Reply {
  status: number;
  body: any;
}

/** A small JSON client: never throws on an HTTP status, only when the server cannot be reached. */
export function client(baseUrl: string, key: string) {
  const call = async (method: string, p: string, body?: unknown): Promise<Reply> => {
    const res = await fetch(`${baseUrl}${API}${p}`, {
      method,
      headers: {
        authorization: `ApiKey ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return {
    get: (p: string) => call('GET', p),
    post: (p: string, body?: unknown) => call('POST', p, body),
  };
}
export type Client = ReturnType<typeof client>;

/** Asserts a 2xx and answers the body; the message carries the server's answer. */
export function ok(reply: Reply, what: string): any {
  if (reply.status < 200 || reply.status > 299)
    throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** A project, a folder and `count` published test cases in it (through `POST /tcase/bulk`); answers their ids. */
export async function seedProject(
  api: Client,
  code: string,
  count: number,
): Promise<{ code: string; tcaseIds: string[] }> {
  ok(await api.post('/project', { code, title: `Scale ${code}` }), 'create project');
  const tcaseIds: string[] = [];
  for (let i = 0; i < count; i += 200) {
    const n = Math.min(200, count - i);
    const body = ok(
      await api.post(`/project/${code}/tcase/bulk`, {
        folderPath: ['scale'],
        tcases: Array.from({ length: n }, (_, j) => ({ title: `case ${i + j + 1}` })),
      }),
      'bulk-create test cases',
    );
    tcaseIds.push(...body.tcases.map((t: { id: string }) => t.id));
  }
  return { code, tcaseIds };
}

/** seedProject, and a static run titled `title` holding every one of its cases. */
export async function seedRun(
  api: Client,
  code: string,
  count: number,
  title: string,
): Promise<{ code: string; tcaseIds: string[]; runId: number }> {
  const { tcaseIds } = await seedProject(api, code, count);
  const run = ok(
    await api.post(`/project/${code}/run`, { title, type: 'static_struct', queryPlans: [{ tcaseIds }] }),
    'create run',
  );
  return { code, tcaseIds, runId: run.id };
}

/** Polls `done` every 50 ms; past `ms`, fails naming what did not happen (and `detail()`, e.g. a server's output). */
export async function waitUntil(
  done: () => boolean,
  what: string,
  ms: number,
  detail = () => '',
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${detail() ? `:\n${detail()}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const STATUSES = ['passed', 'failed', 'blocked', 'skipped', 'open'] as const;

/** A batch of `size` results over `tcaseIds`, all with the same comment (which names the batch). */
export function resultBatch(tcaseIds: string[], size: number, comment: string, salt: number) {
  return {
    items: Array.from({ length: size }, (_, i) => ({
      tcaseId: tcaseIds[(i * 7 + salt) % tcaseIds.length],
      status: STATUSES[(i + salt) % STATUSES.length],
      comment,
      timeTaken: i,
    })),
  };
}

export type StatusCounts = Record<string, number>;

/**
 * What the stored results of a run say the status counts must be: each case's status is that of its latest
 * result (highest id), `open` with none (D18); `all` is the number of cases in the run.
 */
export async function countsFromResults(db: Db, runId: number): Promise<StatusCounts> {
  const cases = await db
    .selectFrom('run_tcases')
    .select('tcase_id')
    .where('run_id', '=', runId)
    .where('in_run', '=', 1)
    .execute();
  const results = await db
    .selectFrom('results')
    .select(['id', 'tcase_id', 'status'])
    .where('run_id', '=', runId)
    .orderBy('id')
    .execute();
  const latest = new Map<string, string>();
  for (const r of results) latest.set(r.tcase_id, r.status);
  const counts: StatusCounts = {
    all: cases.length,
    open: 0,
    passed: 0,
    failed: 0,
    blocked: 0,
    skipped: 0,
    custom1: 0,
    custom2: 0,
    custom3: 0,
    custom4: 0,
  };
  for (const c of cases) counts[latest.get(c.tcase_id) ?? 'open'] += 1;
  return counts;
}

/** The same counts as the run test case list shows them (`GET …/run/{id}/tcase`). */
export function countsFromRunTcases(tcases: Array<{ status: string }>): StatusCounts {
  const counts: StatusCounts = { all: tcases.length };
  for (const s of [
    'open',
    'passed',
    'failed',
    'blocked',
    'skipped',
    'custom1',
    'custom2',
    'custom3',
    'custom4',
  ])
    counts[s] = 0;
  for (const t of tcases) counts[t.status] += 1;
  return counts;
}

/** The run as `GET /run` lists it, with its statusCounts. */
export async function getRun(api: Client, code: string, runId: number): Promise<any> {
  const body = ok(await api.get(`/project/${code}/run`), 'list runs');
  const run = body.runs.find((r: { id: number }) => r.id === runId);
  if (!run) throw new Error(`run ${runId} is not listed`);
  return run;
}

/** Opens a SQLite file read-only with better-sqlite3 (for the backup checks). */
export function openSqliteFile(file: string): SQLite.Database {
  return new SQLite(file, { readonly: true, fileMustExist: true });
}
