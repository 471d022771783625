import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { JsonBody } from '../db/dialect.js';

/**
 * Sends a response body the database built (selectJsonArray) as it is, neither parsed nor serialised again: a
 * Buffer at once, pieces of text one after another (never joined into one string). The length is known either
 * way, so the client sees Content-Length rather than chunked encoding.
 */
export function sendJsonBody(reply: FastifyReply, body: JsonBody): FastifyReply {
  reply.type('application/json; charset=utf-8');
  if (Buffer.isBuffer(body)) return reply.send(body);
  let length = 0;
  for (const piece of body) length += Buffer.byteLength(piece);
  reply.header('content-length', length);
  return reply.send(Readable.from(body, { objectMode: false }));
}
