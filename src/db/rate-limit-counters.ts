import { sql } from 'kysely';
import type { Db } from './connection.js';
import { dialectOf } from './dialect.js';

export type RateLimitCounter = (bucket: string, windowMs: number) => Promise<{ hits: number; ttlMs: number }>;

/**
 * The database's shared rate-limit counter on PostgreSQL (several processes and machines); undefined on SQLite, whose
 * one machine counts in memory (a write per request would cost more there than it shares).
 */
export function sharedRateLimitCounter(db: Db): RateLimitCounter | undefined {
  return dialectOf(db) === 'postgres'
    ? (bucket, windowMs) => countRateLimitHit(db, bucket, windowMs)
    : undefined;
}

/**
 * Counts one request of `bucket` and answers the count in its window and the ms left in it, in one statement on
 * PostgreSQL: the upsert starts a new window when the row's has ended (the same rule as the in-memory and Redis
 * stores of @fastify/rate-limit). Times are the database's clock, so machines whose clocks differ count alike.
 */
async function countRateLimitHit(
  db: Db,
  bucket: string,
  windowMs: number,
): Promise<{ hits: number; ttlMs: number }> {
  const { rows } = await sql<{ hits: number; expires_at: number; now_ms: number }>`
    with clock as (select (extract(epoch from clock_timestamp()) * 1000)::bigint as now_ms)
    insert into rate_limit_counters (bucket, hits, expires_at)
    select ${bucket}, 1, clock.now_ms + ${windowMs} from clock
    on conflict (bucket) do update set
      hits = case when rate_limit_counters.expires_at <= excluded.expires_at - ${windowMs}
        then 1 else rate_limit_counters.hits + 1 end,
      expires_at = case when rate_limit_counters.expires_at <= excluded.expires_at - ${windowMs}
        then excluded.expires_at else rate_limit_counters.expires_at end
    returning hits, expires_at, (select now_ms from clock) as now_ms`.execute(db);
  const row = rows[0];
  return { hits: Number(row.hits), ttlMs: Math.max(0, Number(row.expires_at) - Number(row.now_ms)) };
}

/** Removes counters whose window ended before `nowMs`, `batchSize` rows per statement; answers how many. */
export async function purgeExpiredRateLimits(db: Db, nowMs: number, batchSize = 5000): Promise<number> {
  let removed = 0;
  for (;;) {
    const result = await db
      .deleteFrom('rate_limit_counters')
      .where(
        'bucket',
        'in',
        db
          .selectFrom('rate_limit_counters')
          .select('bucket')
          .where('expires_at', '<', nowMs)
          .limit(batchSize),
      )
      .executeTakeFirst();
    const n = Number(result.numDeletedRows);
    removed += n;
    if (n < batchSize) return removed;
  }
}
