import type { Db } from '../../../db/create-db.js';
import { dialectOf, type JsonBody } from '../../../db/dialect.js';

/*
 * PostgreSQL: the bodies of big run lists (`GET /project/{p}/run/{r}/tcase`), kept per process and checked against
 * the database on every request, never trusted on time alone.
 *
 * Why: on PostgreSQL a 10,000-case list costs half again as much as on SQLite (docs/operations.md, "Sizing"): the
 * rows cross a connection and every item is written by the database's expression engine. A body kept here is
 * served after one cheaper query, the fingerprint of the rows it shows (run-tcases-list.repository.ts
 * runTcasesFingerprint: the xmin of every row version a list item is made of), which changes whenever any of
 * those rows changes, whoever wrote it: another process, another machine, a path nobody thought of. So a kept
 * body is never older than the database; it costs only when it has to be made again.
 *
 * A run being written to (results arriving) would fail the check on most requests and pay it on top of the list;
 * such a run is marked hot: its next request makes the body at once (with its fingerprint, at little cost) and
 * keeps only the fingerprint, until a request finds that nothing changed since the one before and keeps the body.
 */

export interface RunListCacheOptions {
  /** The most bytes of bodies kept in all (least recently used go first); 0 keeps none. */
  maxBytes: number;
  /** Bodies shorter than this many characters are made on every request (cheap enough, not worth a place). */
  minBytes: number;
}

interface Entry {
  /** The fingerprint of the rows at the last request. */
  fingerprint: string;
  /** The body made from them; none while the run is hot. */
  body?: Buffer;
  /** The rows changed between the last two requests: the next one makes the body without checking first. */
  hot: boolean;
}

/** How a request was served, for tests and metrics. */
export interface RunListCacheStats {
  /** Served from the cache after the fingerprint matched. */
  hits: number;
  /** Made again after the fingerprint differed. */
  stale: number;
  /** Made with nothing kept, or with the run marked hot. */
  misses: number;
}

/** What an entry takes: its body, and its key and fingerprint (searches on hot runs leave entries of only those). */
const weight = (key: string, entry: Entry) =>
  (entry.body?.length ?? 0) + key.length + entry.fingerprint.length;

export class RunListCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  readonly stats: RunListCacheStats = { hits: 0, stale: 0, misses: 0 };

  constructor(readonly options: RunListCacheOptions) {}

  get enabled(): boolean {
    return this.options.maxBytes > 0;
  }

  /** The largest body worth keeping: a quarter of the room, so one run cannot push out all others. */
  get maxEntryBytes(): number {
    return Math.floor(this.options.maxBytes / 4);
  }

  /**
   * The body for `key`: the kept one when the rows' fingerprint now (`fingerprintNow`) is the one it was made with,
   * else a new one from `make`, which hands `keep` on to listRunTcasesJson so that the body's pieces and the
   * fingerprint of the rows they were made from come back together once they have been sent.
   */
  async serve(
    key: string,
    fingerprintNow: () => Promise<string>,
    make: (keep: {
      maxBytes: number;
      done: (fingerprint: string, pieces?: string[]) => void;
    }) => Promise<JsonBody>,
  ): Promise<JsonBody> {
    const last = this.entries.get(key);
    if (last?.body && !last.hot) {
      if ((await fingerprintNow()) === last.fingerprint) {
        // The most recently used go last: the first in the map are dropped first. Unless another request put a
        // newer entry in its place meanwhile: that one stays.
        if (this.entries.get(key) === last) {
          this.entries.delete(key);
          this.entries.set(key, last);
        }
        this.stats.hits++;
        return last.body;
      }
      this.stats.stale++;
      // The old body goes now, not when the new one is complete (a client that leaves midway never completes it);
      // its fingerprint stays, so that the request after this one knows the run changed.
      if (this.entries.get(key) === last) this.put(key, { fingerprint: last.fingerprint, hot: false });
    } else this.stats.misses++;
    return make({
      maxBytes: this.maxEntryBytes,
      done: (fingerprint, pieces) => this.remember(key, fingerprint, pieces, last),
    });
  }

  /**
   * After a body was made: the rows changed since the request before (`last`), so the run is hot and only the
   * fingerprint is noted (copying a body that the next result makes old costs more than it would save); or they
   * did not, and the body is kept for the requests to come.
   */
  private remember(
    key: string,
    fingerprint: string,
    pieces: string[] | undefined,
    last: Entry | undefined,
  ): void {
    this.drop(key);
    const hot = last !== undefined && last.fingerprint !== fingerprint;
    let body: Buffer | undefined;
    if (!hot && pieces) {
      // A character takes one to three bytes: the length in characters rules out most bodies before any copy.
      const length = pieces.reduce((n, p) => n + p.length, 0);
      if (length >= this.options.minBytes && length <= this.maxEntryBytes)
        body = Buffer.from(pieces.join(''));
      if (body && body.length > this.maxEntryBytes) body = undefined;
    }
    // A short list (or one too long) leaves nothing behind: it is made every time, unchecked.
    if (!hot && !body) return;
    this.put(key, { fingerprint, body, hot });
  }

  /** Puts `entry` in place of `key`'s, and drops the least recently used until all fits in the room. */
  private put(key: string, entry: Entry): void {
    this.drop(key);
    this.entries.set(key, entry);
    this.bytes += weight(key, entry);
    for (const [oldest, e] of this.entries) {
      if (this.bytes <= this.options.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= weight(oldest, e);
    }
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= weight(key, entry);
  }

  /** Bytes kept in all (bodies, keys and fingerprints). */
  get size(): number {
    return this.bytes;
  }
}

/**
 * The cache of an app on this database: off on SQLite, which lists in the process for less than PostgreSQL's
 * check of a kept body costs.
 */
export const runListCacheFor = (db: Db, options: RunListCacheOptions): RunListCache =>
  new RunListCache(dialectOf(db) === 'postgres' ? options : { ...options, maxBytes: 0 });
