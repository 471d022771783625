import { createHash } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ConfigError, FILE_STORAGES, type Config, type FileStorageName } from '../../config.js';
import type { Db } from '../../db/create-db.js';
import { dialectOf } from '../../db/dialect.js';
import { DatabaseStorage } from './files.db-storage.js';
import { S3Storage } from './files.s3-storage.js';
import { LocalDiskStorage, type FileStorage } from './files.storage.js';

/**
 * The backends of one installation. New uploads go to `current` (CASEBOOK_FILE_STORAGE); every file row names
 * the backend holding its bytes (`files.storage`), read through `of`, so files stay readable across a change.
 */
export interface FileStorages {
  current: FileStorageName;
  /** The backend called `name`; an error naming the missing setting when this installation cannot reach it. */
  of(name: string): FileStorage;
  /** Whether every remote backend in use answers (`/readyz`). */
  reachable(): Promise<boolean>;
  close(): void;
}

export type StorageSettings = Pick<Config, 'dataDir' | 'fileStorage' | 's3'>;

/** Backends are made on first use: an installation without S3 settings never builds a client. */
export function openFileStorages(config: StorageSettings, db: Db): FileStorages {
  const made = new Map<FileStorageName, FileStorage>();
  const make = (name: FileStorageName): FileStorage => {
    if (name === 'local') return new LocalDiskStorage(path.join(config.dataDir, 'files'));
    if (name === 'postgres') {
      if (dialectOf(db) !== 'postgres') {
        throw new ConfigError(
          'file storage "postgres" keeps files in the database and needs a PostgreSQL one',
        );
      }
      return new DatabaseStorage(db);
    }
    if (!config.s3)
      throw new ConfigError('file storage "s3" needs CASEBOOK_S3_BUCKET and the store\'s settings');
    return new S3Storage(config.s3);
  };
  return {
    current: config.fileStorage,
    of(name) {
      if (!(FILE_STORAGES as readonly string[]).includes(name))
        throw new Error(`unknown file storage "${name}"`);
      const key = name as FileStorageName;
      let storage = made.get(key);
      if (!storage) made.set(key, (storage = make(key)));
      return storage;
    },
    async reachable() {
      const answers = await Promise.all([...made.values()].map((s) => s.reachable?.() ?? true));
      return answers.every(Boolean);
    },
    close() {
      for (const s of made.values()) s.close?.();
      made.clear();
    },
  };
}

export interface ObjectDigest {
  size: number;
  sha256: string;
}

/** Streams `source` through a hash and a byte count. */
function metered(source: Readable, digest: ObjectDigest): Readable {
  const hash = createHash('sha256');
  async function* pass() {
    for await (const chunk of source) {
      hash.update(chunk as Buffer);
      digest.size += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
    digest.sha256 = hash.digest('hex');
  }
  return Readable.from(pass(), { objectMode: false });
}

/** The size and sha256 of the object under `key`, read whole; undefined when there is none. */
export async function digestOf(storage: FileStorage, key: string): Promise<ObjectDigest | undefined> {
  const stream = await storage.get(key);
  if (!stream) return undefined;
  const digest = { size: 0, sha256: '' };
  for await (const _ of metered(stream, digest));
  return digest;
}

/**
 * Copies the object under `key` from one backend to another, streamed (never whole in memory), and reads the
 * copy back to check its size and sha256 against `expected` (the file row's) or, without it, the source's. A
 * copy that does not match is removed and the call fails; the source is never touched. Used by
 * `casebook files move` and by `casebook copy` (database to database).
 */
export async function copyObject(
  from: FileStorage,
  to: FileStorage,
  key: string,
  expected?: ObjectDigest,
): Promise<ObjectDigest> {
  const source = await from.get(key);
  if (!source) throw new Error(`no object under storage key ${key} in the source storage`);
  const read = { size: 0, sha256: '' };
  await to.put(key, metered(source, read));
  const want = expected ?? read;
  const written = await digestOf(to, key);
  if (!written || written.size !== want.size || written.sha256 !== want.sha256) {
    await to.delete(key);
    throw new Error(
      `copy of ${key} does not match: expected ${want.size} bytes sha256 ${want.sha256}, stored ${written ? `${written.size} bytes sha256 ${written.sha256}` : 'nothing'}`,
    );
  }
  return written;
}
