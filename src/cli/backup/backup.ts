import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { createDb } from '../../db/create-db.js';
import { backupSqlite } from '../../db/backup.js';
import { readCatalog } from '../../db/copy/catalog.js';
import { countRows } from '../../db/copy/keyset.js';
import { LATEST_MIGRATION } from '../../db/migrator.js';
import { writeTarGz, type TarEntry } from '../../lib/tar.js';
import { LocalDiskStorage } from '../../modules/files/files.storage.js';
import { openFileStorages } from '../../modules/files/files.storages.js';
import { SECRET_KEY_FILE } from '../../secret-key.js';
import { runCopy } from '../copy/command.js';
import { copyFileBodies, switchRows } from '../copy/files.js';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  casebookVersion,
  DATABASE_ENTRY,
  MANIFEST_ENTRY,
  SECRET_KEY_ENTRY,
  type Manifest,
} from './manifest.js';

export interface BackupOptions {
  to: string;
  includeSecretKey: boolean;
  progress: (line: string) => void;
}

export interface BackupSummary {
  file: string;
  bytes: number;
  database: 'sqlite' | 'postgres';
  rows: number;
  files: number;
  secretKey: boolean;
}

/**
 * The snapshot of a SQLite database: SQLite's online backup (one read snapshot, while the service writes), then
 * every file body the snapshot's rows name copied beside it, and those rows switched to the local storage.
 */
async function snapshotSqlite(config: Config, stage: string, progress: (line: string) => void) {
  const file = path.join(stage, DATABASE_ENTRY);
  await backupSqlite(config.databaseUrl, file);
  const snapshot = createDb(`sqlite:${file}`);
  const sources = openFileStorages(config, snapshot);
  try {
    await copyFileBodies(snapshot, sources, new LocalDiskStorage(path.join(stage, 'files')), progress);
    await switchRows(snapshot, 'local');
  } finally {
    sources.close();
    await snapshot.destroy();
  }
}

/** The snapshot of a PostgreSQL database: `casebook copy` into SQLite, reading in one repeatable-read transaction. */
async function snapshotPostgres(config: Config, stage: string, progress: (line: string) => void) {
  const report = await runCopy({
    from: config.databaseUrl,
    to: `sqlite:${path.join(stage, DATABASE_ENTRY)}`,
    filesFrom: path.join(config.dataDir, 'files'),
    filesTo: path.join(stage, 'files'),
    storage: { ...config, fileStorage: 'local' },
    snapshot: true,
    progress,
  });
  if (!report.ok) throw new AppError('CONFLICT', 'the snapshot does not match its source');
}

/** The key to include: CASEBOOK_SECRET_KEY, or the data directory's key file. */
function secretKeyOf(config: Config): string {
  if (config.secretKey !== '') return config.secretKey;
  const file = path.join(config.dataDir, SECRET_KEY_FILE);
  if (!fs.existsSync(file))
    throw new AppError(
      'NOT_FOUND',
      `--include-secret-key: CASEBOOK_SECRET_KEY is not set and ${file} does not exist`,
    );
  return fs.readFileSync(file, 'utf8').trim();
}

/** Every stored file under `dir`, as archive entries `files/<storage key>`. */
function fileEntries(dir: string): TarEntry[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !path.relative(dir, e.parentPath).startsWith('.tmp'))
    .map((e) => {
      const file = path.join(e.parentPath, e.name);
      return { name: `files/${path.relative(dir, file).split(path.sep).join('/')}`, file };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * `casebook backup --to FILE`: a consistent snapshot of the database (either kind), every file's bytes (whatever
 * storage holds them) and a manifest, in one archive (manifest.ts). The secret key only when asked for.
 */
export async function takeBackup(config: Config, options: BackupOptions): Promise<BackupSummary> {
  const target = path.resolve(options.to);
  if (fs.existsSync(target)) throw new AppError('CONFLICT', `${target} exists; choose a new file name`);
  if (config.databaseUrl === 'sqlite::memory:')
    throw new AppError('VALIDATION_FAILED', 'an in-memory database cannot be backed up');
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const stage = fs.mkdtempSync(path.join(path.dirname(target), '.casebook-backup-'));
  const partial = `${target}.partial`;
  try {
    const database = config.databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'postgres';
    options.progress(`taking a snapshot of the ${database === 'sqlite' ? 'SQLite' : 'PostgreSQL'} database`);
    if (database === 'sqlite') await snapshotSqlite(config, stage, options.progress);
    else await snapshotPostgres(config, stage, options.progress);
    const dbFile = path.join(stage, DATABASE_ENTRY);
    // One file, no write-ahead log beside it.
    const raw = new SQLite(dbFile);
    raw.pragma('journal_mode = DELETE');
    raw.close();
    const rows: Record<string, number> = {};
    const snapshot = createDb(`sqlite:${dbFile}`);
    let files = { count: 0, bytes: 0 };
    try {
      for (const table of await readCatalog(snapshot))
        rows[table.name] = await countRows(snapshot, table.name);
      const sum = await snapshot
        .selectFrom('files')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('size').as('bytes')])
        .executeTakeFirstOrThrow();
      files = { count: Number(sum.n), bytes: Number(sum.bytes ?? 0) };
    } finally {
      await snapshot.destroy();
    }
    const entries: TarEntry[] = [
      { name: DATABASE_ENTRY, file: dbFile },
      ...fileEntries(path.join(stage, 'files')),
    ];
    if (options.includeSecretKey)
      entries.push({ name: SECRET_KEY_ENTRY, data: Buffer.from(`${secretKeyOf(config)}\n`) });
    options.progress(`writing ${target}`);
    fs.rmSync(partial, { force: true });
    await writeTarGz(partial, entries, (written) => {
      const manifest: Manifest = {
        format: BACKUP_FORMAT,
        formatVersion: BACKUP_VERSION,
        createdAt: new Date().toISOString(),
        casebookVersion: casebookVersion(),
        migration: LATEST_MIGRATION,
        source: { database, fileStorage: config.fileStorage },
        rows,
        files,
        secretKey: options.includeSecretKey,
        entries: written,
      };
      return { name: MANIFEST_ENTRY, data: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) };
    });
    fs.renameSync(partial, target);
    return {
      file: target,
      bytes: fs.statSync(target).size,
      database,
      rows: Object.values(rows).reduce((a, b) => a + b, 0),
      files: files.count,
      secretKey: options.includeSecretKey,
    };
  } finally {
    fs.rmSync(partial, { force: true });
    fs.rmSync(stage, { recursive: true, force: true });
  }
}
