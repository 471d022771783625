import fs from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { AppError } from '../../errors.js';
import { readTarGz, type TarWritten } from '../../lib/tar.js';
import { checkStorageKey } from '../../modules/files/files.storage.js';

/*
 * The backup archive (docs/operations.md#backups): a gzip-compressed tar holding `database.sqlite` (a consistent
 * snapshot of either database, in SQLite form: every file row names the `local` storage), `files/<storage key>`
 * (every file's bytes), `secret.key` only when asked for, and last `manifest.json` (versions, row counts, and
 * every other entry's size and sha256).
 */

export const BACKUP_FORMAT = 'casebook-backup';
export const BACKUP_VERSION = 1;
export const DATABASE_ENTRY = 'database.sqlite';
export const SECRET_KEY_ENTRY = 'secret.key';
export const MANIFEST_ENTRY = 'manifest.json';

export interface Manifest {
  format: typeof BACKUP_FORMAT;
  formatVersion: number;
  createdAt: string;
  casebookVersion: string;
  /** The schema's latest migration when the snapshot was taken. */
  migration: string;
  source: { database: 'sqlite' | 'postgres'; fileStorage: string };
  /** Rows of every table in the snapshot. */
  rows: Record<string, number>;
  files: { count: number; bytes: number };
  secretKey: boolean;
  entries: TarWritten[];
}

/** The version in package.json (three folders up, from src/ as from dist/). */
export function casebookVersion(): string {
  const text = fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

const damaged = (file: string, why: string) =>
  new AppError('VALIDATION_FAILED', `${file} is not a usable Casebook backup: ${why}`);

/** Where an entry goes inside a directory; every name the backup writes, and no other. */
function placeOf(name: string): string | undefined {
  if (name === DATABASE_ENTRY || name === SECRET_KEY_ENTRY || name === MANIFEST_ENTRY) return name;
  if (!name.startsWith('files/')) return undefined;
  try {
    return path.join('files', ...checkStorageKey(name.slice('files/'.length)).split('/'));
  } catch {
    return undefined;
  }
}

export interface Unpacked {
  manifest: Manifest;
  /** The directory holding what was extracted. */
  dir: string;
}

/**
 * Reads the archive `file` through, checking every entry's size and sha256 against the manifest (a missing,
 * extra, altered or truncated entry fails). Entries `keep` accepts are written under `dir`; the others are only
 * read and checked.
 */
export async function unpackBackup(
  file: string,
  dir: string,
  keep: (name: string) => boolean,
): Promise<Unpacked> {
  if (!fs.existsSync(file)) throw new AppError('NOT_FOUND', `no backup at ${file}`);
  const seen = new Map<string, TarWritten>();
  let manifestText: string | undefined;
  try {
    await readTarGz(fs.createReadStream(file), async (name, size, body) => {
      const place = placeOf(name);
      if (!place) throw damaged(file, `it holds "${name}", which no backup writes`);
      if (seen.has(name) || manifestText !== undefined)
        throw damaged(file, `"${name}" comes after the manifest or twice`);
      const hash = createHash('sha256');
      const target = keep(name) || name === MANIFEST_ENTRY ? path.join(dir, place) : undefined;
      const parts: Buffer[] = [];
      let fd: number | undefined;
      if (target && name !== MANIFEST_ENTRY) {
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fd = fs.openSync(target, 'wx', 0o600);
      }
      try {
        for await (const chunk of body) {
          hash.update(chunk);
          if (name === MANIFEST_ENTRY) parts.push(chunk);
          else if (fd !== undefined) fs.writeSync(fd, chunk);
        }
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
      if (name === MANIFEST_ENTRY) manifestText = Buffer.concat(parts).toString('utf8');
      else seen.set(name, { name, bytes: size, sha256: hash.digest('hex') });
    });
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw damaged(file, (err as Error).message);
  }
  if (manifestText === undefined) throw damaged(file, 'it has no manifest.json (truncated?)');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(manifestText) as Manifest;
  } catch {
    throw damaged(file, 'its manifest.json is not JSON');
  }
  if (manifest.format !== BACKUP_FORMAT)
    throw damaged(file, 'its manifest is not a Casebook backup manifest');
  if (manifest.formatVersion !== BACKUP_VERSION)
    throw damaged(file, `format version ${manifest.formatVersion}: this Casebook reads ${BACKUP_VERSION}`);
  const listed = new Map(manifest.entries.map((e) => [e.name, e]));
  for (const [name, got] of seen) {
    const want = listed.get(name);
    if (!want) throw damaged(file, `"${name}" is not in its manifest`);
    if (want.bytes !== got.bytes || want.sha256 !== got.sha256)
      throw damaged(file, `"${name}" does not match its checksum in the manifest (altered or damaged)`);
  }
  const missing = manifest.entries.filter((e) => !seen.has(e.name)).map((e) => e.name);
  if (missing.length > 0) throw damaged(file, `it lacks ${missing.slice(0, 5).join(', ')}`);
  if (!seen.has(DATABASE_ENTRY)) throw damaged(file, 'it holds no database snapshot');
  return { manifest, dir };
}
