import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/create-db.js';
import {
  findStoredAnswer,
  IdempotencyRace,
  idempotencyClaim,
  type IdempotencyClaim,
} from '../modules/idempotency/idempotency.service.js';

/** The header in a route's schema (OpenAPI); its value is checked by idempotencyClaim. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'optional; the same key (per caller and path) within 24 hours answers the first answer again and stores nothing new',
    }),
  ),
});

/**
 * The optional `Idempotency-Key` header of a write route (docs/api-decisions.md#idempotency-key). Without the header,
 * `work` runs as before, with no extra statement. With it: a first answer stored for the key within 24 hours is
 * sent again (with `Idempotent-Replayed: true`) and nothing new is stored; otherwise `work` runs with the claim
 * and must store its answer in the transaction that stores its data (storeAnswers). When a concurrent request
 * with the same key committed first, `work`'s transaction rolls back and this request gets that first answer.
 */
export async function withIdempotency<T>(
  db: Db,
  req: FastifyRequest,
  reply: FastifyReply,
  status: number,
  work: (claim: IdempotencyClaim | undefined) => Promise<T>,
) {
  const header = req.headers['idempotency-key'];
  if (header === undefined) return reply.code(status).send(await work(undefined));
  const key = Array.isArray(header) ? header.join(',') : header;
  const claim = idempotencyClaim(req.actor, req.method, req.url.split('?')[0], key, req.body);
  const stored = await findStoredAnswer(db, claim);
  if (stored) return replay(reply, stored);
  try {
    return reply.code(status).send(await work(claim));
  } catch (err) {
    if (!(err instanceof IdempotencyRace)) throw err;
    const first = await findStoredAnswer(db, claim);
    if (!first) throw err;
    return replay(reply, first);
  }
}

function replay(reply: FastifyReply, stored: { status: number; body: unknown }) {
  return reply.code(stored.status).header('idempotent-replayed', 'true').send(stored.body);
}
