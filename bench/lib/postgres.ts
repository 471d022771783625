import fs from 'node:fs';
import pg from 'pg';

/* The benchmark's PostgreSQL: is it there, a fresh database for one run, fresh statistics, its CPU time. */

/** PostgreSQL processes seen at the last reading, with their CPU time then (ns), and the CPU time counted so far. */
const pgSeen = new Map<string, number>();
let pgCountedNs = 0;

/**
 * CPU time of the PostgreSQL server's processes on this machine (ms), counted from the first reading: with the
 * server process's own CPU it shows what a request costs in all. Undefined when there are none (a server
 * elsewhere). Backends are one thread each, so /proc/<pid>/schedstat (ns) counts them whole. A process that
 * started since the last reading counts whole (it is new); one that ended takes its last stretch with it, so
 * the figure may be a little low, never negative.
 */
export function postgresCpuMs(): number | undefined {
  const first = pgSeen.size === 0;
  const now = new Map<string, number>();
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!fs.readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) continue;
      now.set(pid, Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // the process ended meanwhile
    }
  }
  if (now.size === 0) return undefined;
  if (!first) for (const [pid, ns] of now) pgCountedNs += Math.max(0, ns - (pgSeen.get(pid) ?? 0));
  pgSeen.clear();
  for (const [pid, ns] of now) pgSeen.set(pid, ns);
  return pgCountedNs / 1e6;
}

/**
 * PostgreSQL: refreshes the planner's statistics after a bulk load. A deployment accrues its data over months
 * while autovacuum keeps them current; a benchmark that queries seconds after loading 10,000 cases would
 * otherwise measure plans made for empty tables (autovacuum analyzes within a minute or so).
 */
export async function analyzePostgres(databaseUrl: string): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query('analyze');
  } finally {
    await c.end();
  }
}

export async function pgAvailable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

export async function freshPgDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `casebook_bench_${Date.now()}`;
  const admin = async (statement: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(statement);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
