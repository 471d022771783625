import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { JsonBody } from '../db/dialect.js';

/**
 * Sends a response body the database built (selectJsonArray) as it is, neither parsed nor serialised again: a
 * Buffer at once (with its Content-Length), pieces of text one after another as they come (chunked).
 */
export function sendJsonBody(reply: FastifyReply, body: JsonBody): FastifyReply {
  reply.type('application/json; charset=utf-8');
  return reply.send(Buffer.isBuffer(body) ? body : Readable.from(body, { objectMode: false }));
}
