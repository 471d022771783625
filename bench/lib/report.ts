/* What the benchmark prints: progress on stderr, and at the end one table of every scenario's figures on stdout. */

export const log = (s: string) => process.stderr.write(`${s}\n`);

export interface Row {
  scenario: string;
  db: string;
  throughput: string;
  p50: string;
  p99: string;
  target: string;
  ratio: string;
  /** Server CPU time (user + system) per request during the scenario: comparable even on a busy machine. */
  cpu: string;
  /** PostgreSQL's CPU time per request (its processes on this machine); SQLite's is part of the server's. */
  dbCpu: string;
  met: string;
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
export const ms = (n: number) => `${fmt(n, n < 10 ? 2 : 1)} ms`;

export const perRequestText = (us: number) =>
  us >= 10_000 ? `${fmt(us / 1000, 1)} ms/req` : `${fmt(us)} µs/req`;

/** The table of all rows, under a title line that says how the figures were taken. */
export function printTable(title: string, rows: Row[]): void {
  const headers: Row = {
    scenario: 'scenario',
    db: 'db',
    throughput: 'throughput',
    p50: 'p50',
    p99: 'p99',
    target: 'target',
    ratio: 'vs baseline',
    cpu: 'server CPU',
    dbCpu: 'db CPU',
    met: 'met',
  };
  const cols = Object.keys(headers) as (keyof Row)[];
  const widths = cols.map((c) => Math.max(headers[c].length, ...rows.map((r) => r[c].length)));
  const line = (r: Row) => `| ${cols.map((c, i) => r[c].padEnd(widths[i])).join(' | ')} |`;
  console.log(title);
  console.log(line(headers));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}
