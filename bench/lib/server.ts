import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { withServerFlags } from '../../src/server-flags.js';

export interface BenchServer {
  url: string;
  apiKey: string;
  pid: number;
  child: ChildProcess;
  /** Highest resident set size seen so far (VmHWM of the server process and its workers), in MB. */
  peakRssMb: () => number;
  /** CPU time the server process and its workers have used so far, in ms (threads that ended are not counted). */
  cpuMs: () => number;
  stop: () => Promise<void>;
}

const ROOT = path.resolve(import.meta.dirname, '..', '..');

function vmHwmKb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(status);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * CPU time of a process (all its threads: the event loop, the libuv pool, GC helpers), in ms. schedstat counts
 * nanoseconds; /proc/<pid>/stat (clock ticks of 10 ms) is the fallback.
 */
function cpuTimeMs(pid: number): number {
  try {
    let ns = 0;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    }
    return ns / 1e6;
  } catch {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      return 0;
    }
  }
}

function childPids(pid: number): number[] {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** Starts the built server (`dist/`) as a real process and waits until it listens. */
export async function startBenchServer(options: {
  databaseUrl: string;
  dataDir: string;
  port: number;
  workers?: number;
  env?: Record<string, string>;
  /** Extra node flags for the server process, e.g. `--cpu-prof` (the profile is written when it stops). */
  nodeArgs?: string[];
  /** A key made by an earlier start on the same database (a restart prints no first-start banner). */
  apiKey?: string;
}): Promise<BenchServer> {
  fs.mkdirSync(options.dataDir, { recursive: true });
  const child = spawn(
    process.execPath,
    [
      // The flags `npm start` runs the server with, so the figures are those of the shipped setup.
      // BENCH_NODE_ARGS adds flags to try (BENCH_NODE_ARGS="--heap-growing-percent=50").
      ...withServerFlags([
        ...(options.nodeArgs ?? []),
        ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      ]),
      path.join(ROOT, 'dist/cli/main.js'),
      'serve',
      '--port',
      String(options.port),
      '--host',
      '127.0.0.1',
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        CASEBOOK_DATABASE_URL: options.databaseUrl,
        CASEBOOK_DATA_DIR: options.dataDir,
        CASEBOOK_LOG_LEVEL: 'warn',
        // Stopped between scenarios: no balancer to drain for.
        CASEBOOK_DRAIN_SECONDS: '0',
        CASEBOOK_WORKERS: String(options.workers ?? 1),
        CASEBOOK_OWNER_EMAIL: 'bench@example.com',
        CASEBOOK_OWNER_PASSWORD: 'bench-password',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${out}\n${err}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start:\n${out}\n${err}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const key = options.apiKey ?? /API key:\s+(\S+)/.exec(out)?.[1];
  if (!key) throw new Error(`no API key in the first-start banner:\n${out}`);
  let peak = 0;
  const sample = () => {
    const pids = [child.pid!, ...childPids(child.pid!)];
    peak = Math.max(
      peak,
      pids.reduce((sum, p) => sum + vmHwmKb(p), 0),
    );
  };
  const timer = setInterval(sample, 250);
  return {
    url,
    apiKey: key,
    pid: child.pid!,
    child,
    cpuMs: () => [child.pid!, ...childPids(child.pid!)].reduce((sum, p) => sum + cpuTimeMs(p), 0),
    peakRssMb: () => {
      sample();
      return Math.round(peak / 1024);
    },
    stop: async () => {
      clearInterval(timer);
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      // BENCH_SERVER_LOG=1 shows what the server wrote (warnings, or a diagnostic printed at exit).
      if (process.env.BENCH_SERVER_LOG) process.stderr.write(`-- server stderr:\n${err}\n`);
    },
  };
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** A trivial Fastify route in its own process: the yardstick every figure is divided by. */
export async function startBaselineServer(
  port: number,
): Promise<{ url: string; cpuMs: () => number; stop: () => Promise<void> }> {
  const code = `
    import Fastify from 'fastify';
    const app = Fastify({ logger: false });
    app.get('/baseline', async () => ({ id: 'x', code: 'PRJ', title: 'Baseline' }));
    await app.listen({ port: ${port}, host: '127.0.0.1' });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/baseline`)).ok) break;
    } catch {
      if (i > 100 || child.exitCode !== null) throw new Error('the baseline server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    cpuMs: () => cpuTimeMs(child.pid!),
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
