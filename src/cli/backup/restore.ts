import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { createDb } from '../../db/create-db.js';
import { readCatalog } from '../../db/copy/catalog.js';
import { countRows } from '../../db/copy/keyset.js';
import { fileObjects } from '../../db/copy/file-rows.js';
import { holdsData } from '../../db/copy/state.js';
import { LATEST_MIGRATION, latestAppliedMigration, migrateToLatest } from '../../db/migrator.js';
import { SECRET_KEY_FILE, verifySecretKey } from '../../secret-key.js';
import { runCopy } from '../copy/command.js';
import { DATABASE_ENTRY, SECRET_KEY_ENTRY, unpackBackup, type Manifest } from './manifest.js';

/** Opens the unpacked snapshot: its schema, its row counts against the manifest, every file row's body present. */
async function checkSnapshot(file: string, dir: string, manifest: Manifest): Promise<void> {
  if (manifest.migration > LATEST_MIGRATION)
    throw new AppError(
      'CONFLICT',
      `${file} was taken by a newer Casebook (${manifest.casebookVersion}, migration ${manifest.migration}): restore it with that version or later`,
    );
  const db = createDb(`sqlite:${path.join(dir, DATABASE_ENTRY)}`);
  try {
    const applied = await latestAppliedMigration(db);
    if (applied === undefined || applied !== manifest.migration)
      throw new AppError('VALIDATION_FAILED', `${file}: its snapshot does not open as the manifest says`);
    for (const table of await readCatalog(db)) {
      const n = await countRows(db, table.name);
      if (n !== (manifest.rows[table.name] ?? 0))
        throw new AppError(
          'VALIDATION_FAILED',
          `${file}: table ${table.name} holds ${n} rows, the manifest says ${manifest.rows[table.name]}`,
        );
    }
    const bodies = new Map(manifest.entries.map((e) => [e.name, e]));
    for await (const row of fileObjects(db)) {
      const body = bodies.get(`files/${row.storage_key}`);
      if (!body || body.sha256 !== row.sha256 || body.bytes !== row.size)
        throw new AppError('VALIDATION_FAILED', `${file}: the bytes of file ${row.id} are missing or differ`);
    }
  } finally {
    await db.destroy();
  }
}

export interface VerifySummary {
  ok: true;
  file: string;
  createdAt: string;
  casebookVersion: string;
  database: string;
  rows: number;
  files: number;
  secretKey: boolean;
}

/** `casebook backup verify FILE`: every checksum, the manifest, and the snapshot opens with what it says. */
export async function verifyBackup(file: string): Promise<VerifySummary> {
  const full = path.resolve(file);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-verify-'));
  try {
    const { manifest } = await unpackBackup(full, dir, (name) => name === DATABASE_ENTRY);
    await checkSnapshot(full, dir, manifest);
    return {
      ok: true,
      file: full,
      createdAt: manifest.createdAt,
      casebookVersion: manifest.casebookVersion,
      database: manifest.source.database,
      rows: Object.values(manifest.rows).reduce((a, b) => a + b, 0),
      files: manifest.files.count,
      secretKey: manifest.secretKey,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The archive's key, written as the data directory's key file when no key is set there yet. */
function placeSecretKey(config: Config, dir: string): string {
  const key = fs.readFileSync(path.join(dir, SECRET_KEY_ENTRY), 'utf8').trim();
  if (config.secretKey !== '')
    return config.secretKey === key
      ? 'the backup holds the key CASEBOOK_SECRET_KEY is set to'
      : 'the backup holds a secret key, but CASEBOOK_SECRET_KEY is set to another one: it is used';
  const file = path.join(config.dataDir, SECRET_KEY_FILE);
  if (fs.existsSync(file)) return `the backup holds a secret key; ${file} exists and was kept`;
  fs.mkdirSync(config.dataDir, { recursive: true });
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return `restored into ${file}`;
}

/** Whether the key this installation will start with opens the restored secrets (it is not created here). */
async function keyCheck(config: Config): Promise<string> {
  const file = path.join(config.dataDir, SECRET_KEY_FILE);
  const key =
    config.secretKey !== ''
      ? config.secretKey
      : fs.existsSync(file)
        ? fs.readFileSync(file, 'utf8').trim()
        : '';
  if (key === '')
    return `is needed: set CASEBOOK_SECRET_KEY, or put the backed-up key into ${file}, before the service starts`;
  const db = createDb(config.databaseUrl);
  try {
    await verifySecretKey(db, {
      key,
      source: config.secretKey !== '' ? 'env' : 'file',
      file,
      created: false,
    });
    return 'opens the restored secrets';
  } catch (err) {
    return `does not fit: ${(err as Error).message}`;
  } finally {
    await db.destroy();
  }
}

/** Refuses a target holding data before the archive is read (the copy checks again, and resumes its own). */
async function checkEmpty(url: string): Promise<void> {
  const db = createDb(url);
  try {
    const filled = await holdsData(
      db,
      (await readCatalog(db)).map((t) => t.name),
    );
    if (filled)
      throw new AppError(
        'CONFLICT',
        `the target already holds data (table ${filled} has rows): casebook restore writes only into an empty database`,
      );
  } finally {
    await db.destroy();
  }
}

/**
 * `casebook restore --from FILE`: the archive checked whole, then its snapshot copied into the configured, empty
 * database (either kind; one holding data is refused untouched) and its files into the configured file storage.
 */
export async function restoreBackup(config: Config, file: string, progress: (line: string) => void) {
  const full = path.resolve(file);
  if (!fs.existsSync(full)) throw new AppError('NOT_FOUND', `no backup at ${full}`);
  await checkEmpty(config.databaseUrl);
  fs.mkdirSync(config.dataDir, { recursive: true });
  const dir = fs.mkdtempSync(path.join(config.dataDir, '.restore-'));
  try {
    progress(`checking ${full}`);
    const { manifest } = await unpackBackup(full, dir, () => true);
    await checkSnapshot(full, dir, manifest);
    const snapshotUrl = `sqlite:${path.join(dir, DATABASE_ENTRY)}`;
    const snapshot = createDb(snapshotUrl);
    try {
      // A backup of an older version: its schema brought up to this one's first, as a start would.
      await migrateToLatest(snapshot);
    } finally {
      await snapshot.destroy();
    }
    const report = await runCopy({
      from: snapshotUrl,
      to: config.databaseUrl,
      filesFrom: path.join(dir, 'files'),
      storage: config,
      command: 'casebook restore',
      progress,
    });
    if (!report.ok) throw new AppError('CONFLICT', 'the restored database does not match the backup');
    const placed = manifest.secretKey ? `${placeSecretKey(config, dir)}; ` : '';
    return {
      restored: full,
      createdAt: manifest.createdAt,
      database: config.databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'postgres',
      rows: report.tables.reduce((a, t) => a + t.targetRows, 0),
      files: report.files,
      secretKey: `${placed}the secret key ${await keyCheck(config)}`,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
