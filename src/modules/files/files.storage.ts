import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { newUuid } from '../../lib/ids.js';

/**
 * Where uploaded bytes live. Keys are relative, slash-separated paths of `[A-Za-z0-9._-]` segments.
 * `put` is all or nothing: a failed or aborted write leaves no object behind.
 */
export interface FileStorage {
  put(key: string, stream: Readable): Promise<void>;
  /** The object's bytes, or undefined when there is no object under `key`. */
  get(key: string): Promise<Readable | undefined>;
  /** Removes the object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Lets go of connections the backend holds (S3's sockets); the database and disk hold none. */
  close?(): void;
  /** Whether a remote store answers (`/readyz` after it failed); stores in this process or the database have none. */
  reachable?(): Promise<boolean>;
}

const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/** Every backend accepts the same keys, so a file can move between them under its key. */
export function checkStorageKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`invalid storage key "${key}"`);
  return key;
}

/** The default store: one file per object under a root directory (`<dataDir>/files`). */
export class LocalDiskStorage implements FileStorage {
  private readonly tmpDir: string;

  constructor(private readonly root: string) {
    this.tmpDir = path.join(root, '.tmp');
  }

  private pathOf(key: string): string {
    // Segments never start with a dot, so no key can climb out of the root or hit `.tmp`.
    return path.join(this.root, ...checkStorageKey(key).split('/'));
  }

  async put(key: string, stream: Readable): Promise<void> {
    const target = this.pathOf(key);
    await fsp.mkdir(this.tmpDir, { recursive: true });
    // Written beside the root and renamed into place (same file system: atomic), so a reader never
    // sees half a file and a failed upload leaves only nothing.
    const tmp = path.join(this.tmpDir, newUuid());
    try {
      await pipeline(stream, fs.createWriteStream(tmp, { flags: 'wx', flush: true }));
      await fsp.mkdir(path.dirname(target), { recursive: true });
      await fsp.rename(tmp, target);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw err;
    }
  }

  async get(key: string): Promise<Readable | undefined> {
    const file = this.pathOf(key);
    try {
      const handle = await fsp.open(file, 'r');
      return handle.createReadStream();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.pathOf(key), { force: true });
  }
}
