import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * After a failed upload (a full disk, a file over the limit), reads and drops what is left of the body, up to
 * `cap` bytes, so that the answer reaches a client still sending: left unread, the body stalls the connection
 * (the client waits to send, the server to read) until one side resets it. Beyond `cap` the connection closes.
 */
export function drainBody(req: FastifyRequest, reply: FastifyReply, cap: number): Promise<void> {
  const raw = req.raw;
  if (raw.readableEnded || raw.destroyed) return Promise.resolve();
  raw.unpipe();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      raw.off('data', onData);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > cap) {
        raw.pause();
        reply.header('connection', 'close');
        done();
      }
    };
    raw.on('data', onData);
    raw.once('end', done);
    raw.once('close', done);
    raw.once('error', done);
    raw.resume();
  });
}
