import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { createDb, describeDatabaseUrl, type Db } from '../create-db.js';
import { LATEST_MIGRATION, latestAppliedMigration, migrateToLatest } from '../migrator.js';
import { AppError } from '../../errors.js';
import { dialectOf } from '../dialect.js';
import { copyOrder, readCatalog, type TableInfo } from './catalog.js';
import { countRows, keyOf, readChunk, type Row } from './keyset.js';
import { rebuildSearchDocs } from '../search-docs.js';
import { readCounters, setCounters } from './sequences.js';
import { createStateTable, holdsData, readState, saveState, WHOLE_COPY, type TableState } from './state.js';
import { toTarget } from './values.js';
import { verifyTable, type TableCheck } from './verify.js';

/**
 * `casebook copy --from URL --to URL`: every tenant with all its rows from one database into an empty other one
 * (SQLite → PostgreSQL and back), ids and counters kept, with the service stopped. See docs/operations.md.
 */

export interface CopyOptions {
  from: string;
  to: string;
  /** Rows per chunk (one transaction in the target, one marker update). */
  chunkRows?: number;
  /** Test hook: stop (as if interrupted) after this many chunks. */
  stopAfterChunks?: number;
  progress?: (line: string) => void;
  /**
   * Read a PostgreSQL source in one read-only, repeatable-read transaction: a consistent snapshot of a database
   * that is still being written to (`casebook backup`). A SQLite source is snapshotted before (db/backup.ts).
   */
  snapshot?: boolean;
  /** The command named in the refusal of a target holding data (default `casebook copy`). */
  command?: string;
  /**
   * Work between a verified copy of the rows and the marker that says the copy is done (the file bodies):
   * `bodies` may be long and must be resumable (an interruption leaves the copy unfinished, so running it again
   * resumes); `finish` runs in the transaction that writes the marker.
   */
  beforeDone?: {
    bodies(source: Db, target: Db): Promise<void>;
    finish(trx: Db): Promise<void>;
  };
}

export interface CopyReport {
  source: string;
  target: string;
  resumed: boolean;
  tables: TableCheck[];
  counters: Array<{ table: string; next: number }>;
  ok: boolean;
}

/** Thrown by the stopAfterChunks hook: the copy stopped where an interruption would. */
export class CopyInterrupted extends Error {}

// Parameters per INSERT: under SQLite's 32,766 and PostgreSQL's 65,535.
const MAX_PARAMETERS = 30_000;

/** How the marker names a source: the SQLite file's absolute path, or the URL without its password. */
function sourceName(url: string): string {
  return url.startsWith('sqlite:')
    ? `sqlite:${path.resolve(url.slice('sqlite:'.length))}`
    : describeDatabaseUrl(url);
}

async function checkSource(url: string, db: Db): Promise<void> {
  const applied = await latestAppliedMigration(db);
  if (applied === undefined)
    throw new AppError('VALIDATION_FAILED', `${sourceName(url)} holds no Casebook database`);
  if (applied < LATEST_MIGRATION)
    throw new AppError(
      'CONFLICT',
      `the source is at migration ${applied}, this Casebook's is ${LATEST_MIGRATION}: run the service once to migrate it first`,
    );
  if (applied > LATEST_MIGRATION)
    throw new AppError(
      'CONFLICT',
      `the source is at migration ${applied}, newer than this Casebook's ${LATEST_MIGRATION}: copy with the version that wrote it`,
    );
}

/** Refuses a target holding anything this copy did not write; answers the marker of a copy to resume. */
async function checkTarget(db: Db, source: string, command: string): Promise<TableState[]> {
  const state = await readState(db);
  const whole = state.find((s) => s.table_name === WHOLE_COPY);
  if (whole && whole.source !== source)
    throw new AppError(
      'CONFLICT',
      `the target holds an unfinished copy of ${whole.source}, not of ${source}`,
    );
  if (whole?.phase === 'done')
    throw new AppError('CONFLICT', `the target already holds a finished copy of ${source}`);
  if (!whole) {
    const tables = (await readCatalog(db)).map((t) => t.name);
    const filled = await holdsData(db, tables);
    if (filled)
      throw new AppError(
        'CONFLICT',
        `the target already holds data (table ${filled} has rows): ${command} writes only into an empty database`,
      );
  }
  return state;
}

async function insertRows(
  trx: Kysely<never>,
  table: TableInfo,
  rows: Row[],
  nulled: Set<string>,
): Promise<void> {
  const perInsert = Math.max(1, Math.floor(MAX_PARAMETERS / table.columns.length));
  const converted = rows.map((row) => {
    const out: Row = {};
    for (const c of table.columns) out[c.name] = nulled.has(c.name) ? null : toTarget(row[c.name], c);
    return out;
  });
  const db = trx as unknown as Kysely<Record<string, Row>>;
  for (let i = 0; i < converted.length; i += perInsert)
    await db
      .insertInto(table.name)
      .values(converted.slice(i, i + perInsert))
      .execute();
}

/** Sets self-references (tcases.template_id) once every row of the table is there for them to point at. */
async function setLinks(trx: Kysely<never>, table: TableInfo, rows: Row[]): Promise<void> {
  const db = trx as unknown as Kysely<Record<string, Row>>;
  for (const row of rows) {
    const set: Row = {};
    for (const c of table.selfReferences)
      set[c] = toTarget(
        row[c],
        table.columns.find((x) => x.name === c)!,
      );
    let update = db.updateTable(table.name).set(set);
    for (const k of table.key) update = update.where(k, '=', row[k] as never);
    await update.execute();
  }
}

interface Run {
  source: Db;
  target: Db;
  sourceId: string;
  chunkRows: number;
  chunks: number;
  stopAfterChunks?: number;
  progress: (line: string) => void;
}

/** One table's rows (then its self-references), chunk by chunk from where the marker says. */
async function copyTable(
  run: Run,
  table: TableInfo,
  target: TableInfo,
  state: TableState | undefined,
): Promise<void> {
  const total = await countRows(run.source, table.name);
  let phase = state?.phase ?? 'rows';
  let after = state?.last_key ? (JSON.parse(state.last_key) as unknown[]) : undefined;
  let done = state?.rows_done ?? 0;
  const nulled = new Set(table.selfReferences);
  while (phase !== 'done') {
    const rows = await readChunk(run.source, table, after, run.chunkRows);
    const next =
      rows.length > 0
        ? { phase, last: keyOf(table, rows.at(-1)!) }
        : { phase: phase === 'rows' && nulled.size > 0 ? 'links' : 'done', last: undefined };
    await run.target.transaction().execute(async (trx) => {
      const t = trx as unknown as Kysely<never>;
      if (rows.length > 0 && phase === 'rows') await insertRows(t, target, rows, nulled);
      if (rows.length > 0 && phase === 'links')
        await setLinks(
          t,
          target,
          rows.filter((r) => table.selfReferences.some((c) => r[c] !== null)),
        );
      await saveState(t, {
        table_name: table.name,
        source: run.sourceId,
        phase: next.phase as TableState['phase'],
        last_key: next.last === undefined ? null : JSON.stringify(next.last),
        rows_done: phase === 'rows' ? done + rows.length : done,
      });
    });
    if (phase === 'rows') done += rows.length;
    phase = next.phase as TableState['phase'];
    after = next.last;
    if (rows.length > 0) {
      run.progress(`${table.name}: ${phase === 'links' ? 'links of ' : ''}${done}/${total} rows`);
      run.chunks++;
      if (run.stopAfterChunks !== undefined && run.chunks >= run.stopAfterChunks)
        throw new CopyInterrupted(
          `copy stopped after ${run.chunks} chunks (CASEBOOK_COPY_STOP_AFTER_CHUNKS)`,
        );
    }
  }
  if (total === 0 || state?.phase === 'done') run.progress(`${table.name}: ${done}/${total} rows`);
}

function sameColumns(source: TableInfo, target: TableInfo | undefined): void {
  const names = (t: TableInfo) =>
    t.columns
      .map((c) => c.name)
      .sort()
      .join(',');
  if (!target || names(source) !== names(target))
    throw new AppError('CONFLICT', `table ${source.name} differs between the source and the target schema`);
}

export async function copyDatabase(options: CopyOptions): Promise<CopyReport> {
  const sourceId = sourceName(options.from);
  if (sourceId === sourceName(options.to))
    throw new AppError('VALIDATION_FAILED', '--from and --to name the same database');
  if (options.from.startsWith('sqlite:')) {
    const file = options.from.slice('sqlite:'.length);
    // createDb would create an empty file: a mistyped path is answered instead.
    if (file === ':memory:' || !fs.existsSync(file))
      throw new AppError('NOT_FOUND', `no database at ${file}`);
  }
  const source = createDb(options.from);
  const target = createDb(options.to);
  try {
    if (options.snapshot && dialectOf(source) === 'postgres')
      return await source
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute((trx) => copyFrom(trx, target, options, sourceId));
    return await copyFrom(source, target, options, sourceId);
  } finally {
    await Promise.all([source.destroy(), target.destroy()]);
  }
}

async function copyFrom(source: Db, target: Db, options: CopyOptions, sourceId: string): Promise<CopyReport> {
  const progress = options.progress ?? (() => {});
  await checkSource(options.from, source);
  const state = await checkTarget(target, sourceId, options.command ?? 'casebook copy');
  const resumed = state.length > 0;
  await migrateToLatest(target);
  await createStateTable(target);
  if (!resumed)
    await saveState(target, {
      table_name: WHOLE_COPY,
      source: sourceId,
      phase: 'rows',
      last_key: null,
      rows_done: 0,
    });
  progress(resumed ? `resuming the copy of ${sourceId}` : `copying ${sourceId} to ${sourceName(options.to)}`);
  // File bodies kept in the database are not rows to copy: `beforeDone` moves them into whatever storage the
  // target uses (file_chunks on PostgreSQL, a directory, S3), each checked against its file's sha256.
  const tables = copyOrder((await readCatalog(source)).filter((t) => t.name !== 'file_chunks'));
  const targetTables = new Map((await readCatalog(target)).map((t) => [t.name, t]));
  for (const table of tables) sameColumns(table, targetTables.get(table.name));
  const run: Run = {
    source,
    target,
    sourceId,
    chunkRows: options.chunkRows ?? 5000,
    chunks: 0,
    stopAfterChunks: options.stopAfterChunks,
    progress,
  };
  for (const table of tables)
    await copyTable(
      run,
      table,
      targetTables.get(table.name)!,
      state.find((s) => s.table_name === table.name),
    );
  const counters = await setCounters(target, await readCounters(source));
  progress('rebuilding the search index of test cases');
  await rebuildSearchDocs(target);
  progress('verifying row counts and checksums');
  const checks: TableCheck[] = [];
  for (const table of tables) {
    const check = await verifyTable(source, target, table, targetTables.get(table.name)!, run.chunkRows);
    progress(
      `${table.name}: ${check.targetRows}/${check.sourceRows} rows, ${check.ok ? 'checksum matches' : 'MISMATCH'}`,
    );
    checks.push(check);
  }
  const ok = checks.every((c) => c.ok);
  if (ok) {
    await options.beforeDone?.bodies(source, target);
    await target.transaction().execute(async (trx) => {
      await options.beforeDone?.finish(trx);
      await saveState(trx, {
        table_name: WHOLE_COPY,
        source: sourceId,
        phase: 'done',
        last_key: null,
        rows_done: 0,
      });
    });
  }
  return { source: sourceId, target: sourceName(options.to), resumed, tables: checks, counters, ok };
}
