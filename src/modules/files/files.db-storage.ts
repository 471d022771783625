import { Readable } from 'node:stream';
import type { Db } from '../../db/create-db.js';
import { checkStorageKey, type FileStorage } from './files.storage.js';

/** Rows of this size: large enough that a 10 MB file is 40 statements, small enough to never buffer a file. */
export const CHUNK_BYTES = 256 * 1024;
/** Chunks read per query: a megabyte, so a 10 MB download is ten round trips. */
const READ_CHUNKS = 4;

/**
 * File bodies in the database (CASEBOOK_FILE_STORAGE=postgres): `file_chunks` rows of CHUNK_BYTES per storage
 * key, numbered from 0 (an empty file is one empty chunk, so that it exists). Written in one transaction as the
 * upload streams in, so a failed or aborted upload — or a crash — leaves no chunk; read back READ_CHUNKS per query.
 * The transaction holds one pooled connection for the length of an upload (docs/operations.md#file-storage).
 */
export class DatabaseStorage implements FileStorage {
  constructor(private readonly db: Db) {}

  async put(key: string, stream: Readable): Promise<void> {
    checkStorageKey(key);
    await this.db.transaction().execute(async (trx) => {
      // Writing a key again replaces it (a resumed `files move` copies a file a second time).
      await trx.deleteFrom('file_chunks').where('storage_key', '=', key).execute();
      let idx = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const write = (data: Buffer) =>
        trx.insertInto('file_chunks').values({ storage_key: key, idx: idx++, data }).execute();
      for await (const chunk of stream) {
        pending.push(chunk as Buffer);
        pendingBytes += (chunk as Buffer).length;
        while (pendingBytes >= CHUNK_BYTES) {
          const all = pending.length === 1 ? pending[0] : Buffer.concat(pending);
          await write(all.subarray(0, CHUNK_BYTES));
          const rest = all.subarray(CHUNK_BYTES);
          pending = rest.length > 0 ? [rest] : [];
          pendingBytes = rest.length;
        }
      }
      if (pendingBytes > 0 || idx === 0) await write(Buffer.concat(pending));
    });
  }

  /** Chunks `from` … `from + READ_CHUNKS - 1` in order: one query per megabyte read, not per chunk. */
  private async chunks(key: string, from: number): Promise<Buffer[]> {
    const rows = await this.db
      .selectFrom('file_chunks')
      .select('data')
      .where('storage_key', '=', key)
      .where('idx', '>=', from)
      .where('idx', '<', from + READ_CHUNKS)
      .orderBy('idx')
      .execute();
    return rows.map((row) => row.data);
  }

  async get(key: string): Promise<Readable | undefined> {
    checkStorageKey(key);
    const first = await this.chunks(key, 0);
    if (first.length === 0) return undefined;
    const next = (from: number) => this.chunks(key, from);
    // The next group is asked for while the reader takes this one: two groups in memory at most.
    async function* read() {
      let group = first;
      for (let from = READ_CHUNKS; ; from += READ_CHUNKS) {
        const ahead = group.length === READ_CHUNKS ? next(from) : undefined;
        for (const data of group) if (data.length > 0) yield data;
        if (!ahead) return;
        group = await ahead;
        if (group.length === 0) return;
      }
    }
    return Readable.from(read(), { objectMode: false });
  }

  async delete(key: string): Promise<void> {
    await this.db.deleteFrom('file_chunks').where('storage_key', '=', checkStorageKey(key)).execute();
  }
}
