import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { AppError } from '../errors.js';

/**
 * The snapshot of a SQLite database that `casebook backup` puts into its archive (src/cli/backup/backup.ts): a
 * consistent copy while the server keeps serving (SQLite's online backup API copies a snapshot page by page).
 */
export async function backupSqlite(
  databaseUrl: string,
  target: string,
): Promise<{ file: string; bytes: number }> {
  if (!databaseUrl.startsWith('sqlite:') || databaseUrl === 'sqlite::memory:') {
    throw new AppError(
      'VALIDATION_FAILED',
      'casebook backup copies a SQLite database; for PostgreSQL use pg_dump (see docs/operations.md)',
    );
  }
  const source = databaseUrl.slice('sqlite:'.length);
  if (!fs.existsSync(source)) throw new AppError('NOT_FOUND', `no database at ${source}`);
  const file = path.resolve(target);
  if (fs.existsSync(file)) throw new AppError('CONFLICT', `${file} exists; choose a new file name`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new SQLite(source, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 10000');
  try {
    const partial = `${file}.partial`;
    // All pages in one step: a step holds one read snapshot, so the copy is consistent; in small steps (the
    // default) every commit by the serving process would restart the copy, which may then never finish.
    try {
      await db.backup(partial, { progress: () => 0x7fffffff });
    } catch (err) {
      fs.rmSync(partial, { force: true });
      throw err;
    }
    fs.renameSync(partial, file);
  } finally {
    db.close();
  }
  return { file, bytes: fs.statSync(file).size };
}
