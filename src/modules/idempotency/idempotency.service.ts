import type { Db } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest, conflict } from '../../errors.js';
import { sha256 } from '../../lib/crypto.js';
import * as repo from './idempotency.repository.js';

/** How long the first answer to a key is kept and replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** An Idempotency-Key as it applies to one request: scoped by tenant, caller and route (method and path). */
export interface IdempotencyClaim {
  tenantId: string;
  caller: string;
  route: string;
  key: string;
  requestHash: string;
}

/** A stored first answer. */
export interface StoredAnswer {
  status: number;
  body: unknown;
}

/**
 * Thrown from inside a writing transaction when another request with the same key committed first: the
 * transaction rolls back (nothing of this request is stored) and the caller answers with the stored answer.
 */
export class IdempotencyRace extends Error {
  constructor() {
    super('a request with the same Idempotency-Key was stored first');
    this.name = 'IdempotencyRace';
  }
}

/** The claim of a request carrying the header; 400 for a key that is not 1–255 visible ASCII characters. */
export function idempotencyClaim(
  actor: Actor,
  method: string,
  path: string,
  key: string,
  body: unknown,
): IdempotencyClaim {
  if (!KEY_PATTERN.test(key)) {
    throw badRequest('Idempotency-Key must be 1-255 visible ASCII characters');
  }
  return {
    tenantId: actor.tenantId,
    caller: actor.apiKeyId !== null ? `key:${actor.apiKeyId}` : `user:${actor.userId}`,
    route: `${method} ${path}`,
    key,
    requestHash: sha256(JSON.stringify(body ?? null)),
  };
}

/**
 * The first answer to this claim's key within 24 hours, or undefined. The same key with another body is a 409
 * (the key names another request; a client bug, never replayed). An expired record is removed on the way.
 */
export async function findStoredAnswer(db: Db, claim: IdempotencyClaim): Promise<StoredAnswer | undefined> {
  const row = await repo.findRecord(db, claim.tenantId, claim.caller, claim.route, claim.key);
  if (!row) return undefined;
  if (row.expires_at <= new Date().toISOString()) {
    await repo.deleteRecord(db, claim.tenantId, row.id);
    return undefined;
  }
  if (row.request_hash !== claim.requestHash) {
    throw conflict(
      `Idempotency-Key "${claim.key}" was already used with a different request body; use a new key for a new request`,
    );
  }
  return { status: row.status_code, body: JSON.parse(row.response_body) as unknown };
}

/**
 * Stores the answers of claims in the caller's transaction, beside what they answer for (one statement). A key
 * stored first by a concurrent request is an IdempotencyRace, which rolls the transaction back.
 */
export async function storeAnswers(
  trx: Db,
  answers: { claim: IdempotencyClaim; status: number; body: unknown }[],
): Promise<void> {
  if (answers.length === 0) return;
  const now = new Date();
  const createdAt = now.toISOString();
  const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString();
  try {
    await repo.insertRecords(
      trx,
      answers.map(({ claim, status, body }) => ({
        tenant_id: claim.tenantId,
        caller: claim.caller,
        route: claim.route,
        idem_key: claim.key,
        request_hash: claim.requestHash,
        status_code: status,
        response_body: JSON.stringify(body),
        created_at: createdAt,
        expires_at: expiresAt,
      })),
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw new IdempotencyRace();
    throw err;
  }
}

/** Removes expired records in bounded batches (the retention job); answers how many went. */
export async function purgeExpiredIdempotencyKeys(
  db: Db,
  options: { batchSize?: number; now?: Date } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 5000;
  const now = (options.now ?? new Date()).toISOString();
  let total = 0;
  for (;;) {
    const deleted = await repo.removeExpired(db, now, batchSize);
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
