import fsp from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/create-db.js';
import { isStorageFull } from '../db/dialect.js';
import { writeSetting } from '../db/instance-settings.js';
import { LATEST_MIGRATION, latestAppliedMigration, runsOnNewerSchema } from '../db/migrator.js';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  DATABASE_UNAVAILABLE_MESSAGE,
  send,
  type StorageHealth,
} from './error-handler.js';

/** Below this much free space in the data directory, writes are about to fail: not ready. */
export const MIN_FREE_BYTES = 1024 * 1024;

/**
 * Whether this process drains: set at SIGTERM (main.ts), after which `/readyz` answers 503 while requests are still
 * served, so the load balancer takes the instance out before it closes.
 */
export class Drain {
  draining = false;
}

/**
 * While draining, every answer says `Connection: close`, so no kept-alive connection is left for a balancer to
 * reuse once the server closes (nginx does not resend a POST that met a closed connection). First of the app's
 * hooks. A request that reaches the server while it closes, on a connection accepted before, is served the same
 * way: the server closes before the app's own close hooks run and before the database is released.
 */
export function installDrain(app: FastifyInstance, drain: Drain): void {
  // A callback hook, not an async one: no promise per request.
  app.addHook('onRequest', (_request, reply, done) => {
    if (drain.draining) reply.header('connection', 'close');
    done();
  });
}

/** Free bytes for this process in `dir`'s file system; undefined when it cannot be told (no such folder). */
async function freeBytes(dir: string): Promise<number | undefined> {
  try {
    const s = await fsp.statfs(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

/**
 * `GET /readyz` for load balancers: 200 `{status: "ready"}`; 503 NOT_READY while the process drains (SIGTERM) or
 * when the database's newest migration is not the code's (the body says which is behind), unless the database is
 * ahead by additive migrations only; 503
 * DATABASE_UNAVAILABLE when the database does not answer; 507 STORAGE_FULL when the data directory's disk (files,
 * SQLite) has under 1 MiB free, or when a write met a full disk in the last 30 s and no write has succeeded since:
 * then a probe write to the database (whose disk, on PostgreSQL, is not visible from here) tells whether it takes
 * writes again. 503 STORAGE_UNAVAILABLE after a request met the file store (S3) away, until it answers again.
 */
export async function readiness(
  db: Db,
  dataDir: string,
  storage: StorageHealth,
  drain: Drain,
  req: FastifyRequest,
  reply: FastifyReply,
  fileStoreReachable: () => Promise<boolean> = async () => true,
) {
  if (drain.draining) {
    return send(
      reply,
      'NOT_READY',
      'The service is shutting down: requests in flight are finished, send new ones elsewhere.',
    );
  }
  let applied: string | undefined;
  try {
    // Also the proof that the database answers.
    applied = await latestAppliedMigration(db);
  } catch (err) {
    req.log.warn({ err }, 'readiness: database unavailable');
    reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    return send(reply, 'DATABASE_UNAVAILABLE', DATABASE_UNAVAILABLE_MESSAGE);
  }
  // Names sort in order (0001_…): the smaller one is behind. Code behind a schema whose newer migrations only add
  // stays ready, so a rolling upgrade keeps the old instances serving until they are stopped.
  const codeBehind = applied !== undefined && applied > LATEST_MIGRATION;
  if (applied !== LATEST_MIGRATION && !(codeBehind && (await runsOnNewerSchema(db)))) {
    const behind = codeBehind ? 'code' : 'database';
    return reply.code(503).send({
      code: 'NOT_READY',
      message:
        behind === 'database'
          ? `The database's migrations are behind this version: it has ${applied ?? 'none'}, this version needs ${LATEST_MIGRATION}. Run \`casebook migrate\` (or start the service, which migrates).`
          : `This version is behind the database: the database has ${applied}, this version knows up to ${LATEST_MIGRATION}. Upgrade this instance.`,
      behind,
      databaseMigration: applied ?? null,
      codeMigration: LATEST_MIGRATION,
    });
  }
  const free = await freeBytes(dataDir);
  if (free !== undefined && free < MIN_FREE_BYTES) {
    return send(
      reply,
      'STORAGE_FULL',
      `The service's storage is full: ${free} bytes free in the data directory. Free space for writes to succeed.`,
    );
  }
  if (storage.recentlyFull()) {
    const now = new Date().toISOString();
    try {
      await writeSetting(db, 'readiness_probe', now, now);
      storage.clear();
    } catch (err) {
      if (!isStorageFull(err)) throw err;
      storage.markFull();
      return send(
        reply,
        'STORAGE_FULL',
        "The service's storage is full: the database refuses writes for want of space. Free space on the database's disk.",
      );
    }
  }
  if (storage.fileStoreRecentlyDown()) {
    if (!(await fileStoreReachable())) {
      storage.markFileStoreDown();
      reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
      return send(
        reply,
        'STORAGE_UNAVAILABLE',
        'The file store cannot be reached: uploads and downloads fail until it answers again.',
      );
    }
    storage.clearFileStore();
  }
  return { status: 'ready' };
}
