import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One log line per request, written when it is answered: method and URL (redacted: log-redaction.ts), the route
 * that served it, status and time in ms, with the request id that every line of the request carries (errors too).
 * Fastify's default writes two `info` lines per request ("incoming request" and "request completed") and a third
 * for an unknown route; at a few hundred requests a second that doubles the log for nothing.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {
    // Nothing until the answer: the completed line says all the first would.
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const entry = {
      req: request,
      // Undefined for an address no route matched (the 404 answer's status says so).
      route: request.routeOptions.url,
      res: reply,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
    };
    // An error here is one met while sending the answer (after the error handler): the same line, at error.
    if (error) reply.log.error({ ...entry, err: error }, 'request errored');
    else reply.log.info(entry, 'request completed');
  }
}
