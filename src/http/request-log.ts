import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Load balancer and monitoring probes: answered every few seconds, logged at debug so they do not bury the rest. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One log line per request, written when it is answered: method and URL (redacted: log-redaction.ts), the route
 * that served it, status and time in ms, with the request id that every line of the request carries (errors too).
 * Fastify's default writes two `info` lines per request ("incoming request" and "request completed") and a third
 * for an unknown route; at a few hundred requests a second that doubles the log for nothing. The line names the
 * tenant and user once the request is authenticated; probes are logged at debug.
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
    // Set by authentication (http/auth.ts); absent before it, on public routes and refused requests.
    const actor = request.actor as { tenantId?: string; userId?: number } | undefined;
    const entry = {
      req: request,
      tenant: actor?.tenantId,
      user: actor?.userId,
      // Undefined for an address no route matched (the 404 answer's status says so).
      route: request.routeOptions.url,
      res: reply,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
    };
    // An error here is one met while sending the answer (after the error handler): the same line, at error.
    if (error) reply.log.error({ ...entry, err: error }, 'request errored');
    else if (PROBES.has(request.routeOptions.url ?? '')) reply.log.debug(entry, 'request completed');
    else reply.log.info(entry, 'request completed');
  }
}
