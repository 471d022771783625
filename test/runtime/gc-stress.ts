/**
 * Run by runtime.test.ts in a child process with --expose-gc: prepares thousands of distinct statements through
 * the service's own SQLite connection (its statement cache keeps 500 and drops the rest to the garbage collector)
 * and straight through the driver, forcing collections as it goes. better-sqlite3 12 on Node.js 24 aborted the
 * process as soon as a prepared statement was collected; this must print its count and exit 0.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { createDb } from '../../src/db/create-db.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const STATEMENTS = Number(process.argv[2] ?? 5000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-gc-'));
let answered = 0;
try {
  const db = createDb(`sqlite:${path.join(dir, 'gc.db')}`);
  for (let i = 0; i < STATEMENTS; i++) {
    // A distinct SQL text each time: a new prepared statement, evicted from the cache once 500 newer ones exist.
    const { rows } = await sql<{ n: number }>`select ${i} + ${sql.lit(i)} as n`.execute(db);
    if (rows[0]!.n === 2 * i) answered++;
    if (i % 250 === 0) gc();
  }
  await db.destroy();

  const raw = new SQLite(path.join(dir, 'raw.db'));
  for (let i = 0; i < STATEMENTS; i++) {
    if (raw.prepare(`select ${i} as n`).get()) answered++;
    if (i % 250 === 0) gc();
  }
  gc();
  raw.close();
  gc();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`answered ${answered}`);
