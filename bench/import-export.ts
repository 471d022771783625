/**
 * Issue 29's import and export figures, measured on the service as it ships (the built server as its own process,
 * its node flags, its job runner), not in the bench's process:
 *   - a QA Sphere CSV of N cases with 5 steps each (the issue: 50,000) imported, from the upload to the job's end;
 *   - the same cases exported as QA Sphere CSV, the body read as it streams;
 *   - the server's peak RSS, and its RSS sampled through the export (flat memory: the last third's highest
 *     against the first third's).
 * With `real` (issue 39): instead, a real export repeated to N cases: QA Sphere's CSV library's custom-field sample
 * (test/fixtures/imports/real/qasphere-csv/json-steps-custom-fields.csv, the largest real file that carries custom
 * fields), each copy in one of 100 folder trees with its Legacy ID numbered; imported by an admin with the defaults
 * (its three custom fields created), so the custom fields, the warnings and the reconciliation are measured too.
 * A measurement, not a test (nothing here runs in CI). `npm run build` first.
 *   npx tsx bench/import-export.ts [sqlite|postgres] [cases] [real]
 * PostgreSQL: a fresh database on CASEBOOK_BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshPgDatabase } from './lib/postgres.js';
import { freePort, startBenchServer } from './lib/server.js';

const target = process.argv[2] === 'postgres' ? 'postgres' : 'sqlite';
const n = Number(process.argv[3] ?? 50_000);
const real = process.argv[4] === 'real';
const REAL_FILE = path.resolve(
  import.meta.dirname,
  '../test/fixtures/imports/real/qasphere-csv/json-steps-custom-fields.csv',
);

/** The real export's rows, again and again to n cases: each copy under its folder tree, its Legacy IDs numbered. */
function realCsv(): Buffer {
  const [header, ...rows] = fs
    .readFileSync(REAL_FILE, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l !== '');
  const lines = [header];
  for (let k = 0; lines.length <= n; k++)
    for (const row of rows) {
      if (lines.length > n) break;
      lines.push(`copy ${k % 100}/${row}`.replace(',CF-001,', `,CF-001-${k},`));
    }
  return Buffer.from(lines.join('\r\n') + '\r\n');
}
const adminUrl = process.env.CASEBOOK_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** QA Sphere's documented layout; preconditions and expected results carry Markdown emphasis, as real ones do. */
function csv(): Buffer {
  const header = ['Folder', 'Type', 'Name', 'Legacy ID', 'Draft', 'Priority', 'Tags', 'Preconditions'];
  for (let s = 1; s <= 5; s++) header.push(`Step ${s}`, `Expected ${s}`);
  const lines = [header.join(',')];
  for (let i = 0; i < n; i++) {
    const row = [
      `Suite ${i % 10}/Area ${i % 7}`,
      'standalone',
      `Case ${i}`,
      `B-${i}`,
      'false',
      'medium',
      `t${i % 20}`,
    ];
    row.push(`A user with **role ${i % 5}**`);
    for (let s = 1; s <= 5; s++) row.push(`Do step ${s} of case ${i}`, `Step ${s} _works_`);
    lines.push(row.join(','));
  }
  return Buffer.from(lines.join('\r\n') + '\r\n');
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/** The real-export case ends after its import (the export is the synthetic case's). */
class Done extends Error {}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-bench-import-'));
const pgDb = target === 'postgres' ? await freshPgDatabase(adminUrl) : undefined;
const server = await startBenchServer({
  databaseUrl: pgDb?.url ?? `sqlite:${path.join(dataDir, 'casebook.db')}`,
  dataDir,
  port: await freePort(),
});
const api = `${server.url}/api/public/v0`;
const auth = { authorization: `ApiKey ${server.apiKey}` };
try {
  const made = await fetch(`${api}/project`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ code: 'BEN', title: 'Bench' }),
  });
  if (!made.ok) throw new Error(`project: ${made.status} ${await made.text()}`);
  const file = real ? realCsv() : csv();
  const idleRss = rssMb(server.pid);

  const form = new FormData();
  form.set('format', 'qasphere-csv');
  form.set('file', new Blob([new Uint8Array(file)], { type: 'text/csv' }), 'cases.csv');
  const cpu0 = server.cpuMs();
  const t0 = performance.now();
  const posted = await fetch(`${api}/project/BEN/import`, { method: 'POST', headers: auth, body: form });
  if (posted.status !== 202) throw new Error(`import: ${posted.status} ${await posted.text()}`);
  const { id } = (await posted.json()) as { id: number };
  let status: {
    status: string;
    created: number;
    errors: unknown[];
    warnings: unknown[];
    reconciliation: Record<string, Record<string, number>>;
  };
  for (;;) {
    status = (await (
      await fetch(`${api}/project/BEN/import/${id}`, { headers: auth })
    ).json()) as typeof status;
    if (status.status === 'done' || status.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const importSeconds = (performance.now() - t0) / 1000;
  const importCpu = (server.cpuMs() - cpu0) / 1000;
  if (status.status !== 'done') throw new Error(`import ${status.status}: ${JSON.stringify(status.errors)}`);
  const importPeak = server.peakRssMb();
  if (real) {
    console.log(
      `${target}, real export x${n.toLocaleString('en')} cases (${(file.length / 1e6).toFixed(1)} MB), ` +
        `${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}:\n` +
        `  import: ${importSeconds.toFixed(1)} s from the upload to the job's end, ${importCpu.toFixed(1)} s of server CPU, ` +
        `${status.created.toLocaleString('en')} created, ${status.warnings.length} warnings kept; ` +
        `server RSS ${idleRss.toFixed(0)} MB before, peak ${importPeak} MB\n` +
        `  reconciliation: ${JSON.stringify(status.reconciliation)}`,
    );
    if (status.created !== n) throw new Error(`expected ${n} cases, created ${status.created}`);
    process.exitCode = 0;
  }

  if (real) throw new Done();
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMb(server.pid)), 100);
  const cpu1 = server.cpuMs();
  const t1 = performance.now();
  const res = await fetch(`${api}/project/BEN/export?format=qasphere-csv`, { headers: auth });
  if (!res.ok) throw new Error(`export: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let rows = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) rows++;
  }
  const exportSeconds = (performance.now() - t1) / 1000;
  const exportCpu = (server.cpuMs() - cpu1) / 1000;
  clearInterval(sampler);
  if (status.created !== n || rows - 1 !== n)
    throw new Error(`expected ${n} cases, created ${status.created}, exported ${rows - 1}`);
  if (samples.length === 0) samples.push(rssMb(server.pid));
  const third = Math.max(1, Math.floor(samples.length / 3));
  const firstThird = Math.max(...samples.slice(0, third));
  const lastThird = Math.max(...samples.slice(-third));

  console.log(
    `${target}, ${n.toLocaleString('en')} cases (5 steps each, ${(file.length / 1e6).toFixed(1)} MB of CSV), ` +
      `${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}:\n` +
      `  import: ${importSeconds.toFixed(1)} s from the upload to the job's end, ${importCpu.toFixed(1)} s of server CPU, ` +
      `${status.created.toLocaleString('en')} created; server RSS ${idleRss.toFixed(0)} MB before, peak ${importPeak} MB\n` +
      `  export: ${exportSeconds.toFixed(1)} s, ${exportCpu.toFixed(1)} s of server CPU, ${rows - 1} rows, ` +
      `${(bytes / 1e6).toFixed(1)} MB; server RSS highest in its first third ${firstThird.toFixed(0)} MB, ` +
      `in its last third ${lastThird.toFixed(0)} MB; peak ${server.peakRssMb()} MB`,
  );
} catch (err) {
  if (!(err instanceof Done)) throw err;
} finally {
  await server.stop();
  await pgDb?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
