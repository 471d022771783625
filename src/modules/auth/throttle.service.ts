import type { Db } from '../../db/create-db.js';
import { AppError, badRequest } from '../../errors.js';
import { addressKey } from '../../lib/ip.js';
import { checkPassword, getUser } from '../users/users.service.js';
import * as repo from './auth.repository.js';

// Failed sign-ins are rows in `sign_in_failures`, not an in-memory window, so the limits hold across every
// process serving the tenant (several workers, several machines on one PostgreSQL). docs/api-decisions.md#sign-in-throttle
// explains the design: growing delays per address and per account, and the per-account one spares the addresses
// that have proven themselves, so an attacker's guesses cannot lock the owner out.

export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
/** An address that completed a sign-in to an account stays proven for it this long. */
export const KNOWN_ADDRESS_MS = 30 * 24 * 3600_000;

/** A growing delay: `free` failures cost nothing, then each one doubles the wait after it, up to `capMs`. */
export interface Backoff {
  free: number;
  baseMs: number;
  capMs: number;
}

/** Per source address, across accounts: 10 free failures, then 1 s, 2 s, 4 s … up to 15 minutes. */
export const ADDRESS_BACKOFF: Backoff = { free: 10, baseMs: 1000, capMs: 15 * 60_000 };
/** Per account, from addresses that have not proven themselves: 5 free, then 15 s, 30 s … up to 5 minutes. */
export const ACCOUNT_BACKOFF: Backoff = { free: 5, baseMs: 15_000, capMs: 5 * 60_000 };

/** A 429 that knows when to come back; routes put `retryAfterSeconds` into `Retry-After`. */
export class SignInThrottled extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    what = 'too many failed sign-in attempts',
  ) {
    super('RATE_LIMITED', `${what}; try again in ${retryAfterSeconds} seconds`);
  }
}

/** The 429 for a wait of `waitMs` (whole seconds, at least one). */
export const throttled = (waitMs: number, what?: string) =>
  new SignInThrottled(Math.max(1, Math.ceil(waitMs / 1000)), what);

export interface AttemptSource {
  tenantId: string;
  ip: string;
}

const normEmail = (email: string) => email.trim().toLowerCase();
/** The address as the per-address counts and the known addresses hold it: an IPv6 address by its /64 (lib/ip.ts). */
const addressOf = (source: AttemptSource) => addressKey(source.ip);

/** How long from `now` the next attempt must wait under `backoff`, given the failures counted; 0 when free. */
export function backoffWaitMs(backoff: Backoff, tally: repo.Tally, now: number): number {
  if (tally.count < backoff.free || !tally.latest) return 0;
  const delay = Math.min(backoff.baseMs * 2 ** (tally.count - backoff.free), backoff.capMs);
  return Math.max(0, Date.parse(tally.latest) + delay - now);
}

/** Where an attempt to prove who one is stands: the waits the address and the account impose on it. */
export interface ThrottleState {
  /** The source address's own delay: it always binds. */
  addressWaitMs: number;
  /** The account's delay; 0 when the address has proven itself for the account. */
  accountWaitMs: number;
}

export async function throttleState(db: Db, source: AttemptSource, email: string): Promise<ThrottleState> {
  const now = Date.now();
  const since = new Date(now - THROTTLE_WINDOW_MS).toISOString();
  const emailNorm = normEmail(email);
  const byAddress = await repo.failuresSince(db, source.tenantId, { ip: addressOf(source) }, since);
  const byAccount = await repo.failuresSince(db, source.tenantId, { emailNorm }, since);
  let accountWaitMs = backoffWaitMs(ACCOUNT_BACKOFF, byAccount, now);
  if (accountWaitMs > 0) {
    const knownSince = new Date(now - KNOWN_ADDRESS_MS).toISOString();
    if (await repo.isKnownAddress(db, source.tenantId, emailNorm, addressOf(source), knownSince))
      accountWaitMs = 0;
  }
  return { addressWaitMs: backoffWaitMs(ADDRESS_BACKOFF, byAddress, now), accountWaitMs };
}

/**
 * Refuses (429) an attempt that must wait: the address's delay, or the account's unless the address has proven
 * itself. Checked before the password, so a right guess while waiting does not get through.
 */
export async function assertSignInAllowed(db: Db, source: AttemptSource, email: string): Promise<void> {
  const { addressWaitMs, accountWaitMs } = await throttleState(db, source, email);
  const wait = Math.max(addressWaitMs, accountWaitMs);
  if (wait > 0) throw throttled(wait);
}

/** A wrong password or second factor, on any route that checks one: it counts for the address and the account. */
export async function recordSignInFailure(db: Db, source: AttemptSource, email: string): Promise<void> {
  const now = new Date();
  await repo.deleteFailuresBefore(
    db,
    source.tenantId,
    new Date(now.getTime() - THROTTLE_WINDOW_MS).toISOString(),
  );
  await repo.insertFailure(db, source.tenantId, normEmail(email), addressOf(source), now.toISOString());
}

/**
 * A completed sign-in: the address has proven itself for the account, and its own failures on the account are
 * forgiven. Failures from other addresses still count: the owner signing in does not hand an attacker new free guesses.
 */
export async function recordSignInSuccess(db: Db, source: AttemptSource, email: string): Promise<void> {
  const now = Date.now();
  const emailNorm = normEmail(email);
  await repo.deleteFailuresForEmailFrom(db, source.tenantId, emailNorm, addressOf(source));
  await repo.deleteKnownAddressesBefore(db, source.tenantId, new Date(now - KNOWN_ADDRESS_MS).toISOString());
  await repo.rememberAddress(db, source.tenantId, emailNorm, addressOf(source), new Date(now).toISOString());
}

/** A password reset proves the person through their mailbox: every failure on the account is forgiven. */
export const clearSignInFailures = (db: Db, tenantId: string, email: string) =>
  repo.deleteFailuresForEmail(db, tenantId, normEmail(email));

/**
 * Checks a signed-in user's current password before a sensitive change; a wrong one is a 400 at `path`
 * and counts as a failed sign-in, so a stolen session cannot be used to guess the password.
 */
export async function confirmPassword(
  db: Db,
  actor: { tenantId: string; userId: number; ip: string },
  password: string,
  path: string,
): Promise<void> {
  const user = await getUser(db, actor.tenantId, actor.userId);
  await assertSignInAllowed(db, actor, user.email);
  if (!(await checkPassword(db, actor.tenantId, actor.userId, password))) {
    await recordSignInFailure(db, actor, user.email);
    throw badRequest('the current password is not correct', path);
  }
}

// ---- other throttled actions (password-reset requests, device user-code lookups) ----

/** A fixed-window limit on counted attempts of one bucket: at most `max` within `windowMs`. */
export interface WindowLimit {
  max: number;
  windowMs: number;
}

/**
 * How long counted attempts are kept, whatever their bucket: at least the longest window of any limit (the
 * reset links' hour), so the pruning one action does never drops hits that another action's limit still counts.
 */
export const HITS_KEPT_MS = 3600_000;

/** The wait before the bucket may count another attempt under `limit`; 0 when it may now. */
export async function hitWaitMs(
  db: Db,
  tenantId: string,
  bucket: string,
  limit: WindowLimit,
): Promise<number> {
  if (limit.windowMs > HITS_KEPT_MS) {
    throw new Error(
      `a throttle window of ${limit.windowMs} ms is longer than the hits are kept (HITS_KEPT_MS)`,
    );
  }
  const now = Date.now();
  const tally = await repo.hitsSince(db, tenantId, bucket, new Date(now - limit.windowMs).toISOString());
  if (tally.count < limit.max || !tally.oldest) return 0;
  return Math.max(1, Date.parse(tally.oldest) + limit.windowMs - now);
}

/** Counts an attempt in each bucket (and drops the tenant's hits older than HITS_KEPT_MS, of every bucket). */
export async function recordHits(db: Db, tenantId: string, buckets: string[]): Promise<void> {
  const now = Date.now();
  await repo.deleteHitsBefore(db, tenantId, new Date(now - HITS_KEPT_MS).toISOString());
  for (const bucket of buckets) await repo.insertHit(db, tenantId, bucket, new Date(now).toISOString());
}

/** The bucket key of an e-mail address, as the throttles count it. */
export const emailBucket = (prefix: string, email: string) => `${prefix}:account:${normEmail(email)}`;
