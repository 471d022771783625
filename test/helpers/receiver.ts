import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  requests: Received[];
  /** Decides each answer (default 200 "ok"); may be async (a slow receiver). */
  respond: (
    req: Received,
  ) =>
    | { status: number; body?: string; headers?: Record<string, string> }
    | Promise<{ status: number; body?: string; headers?: Record<string, string> }>;
  close: () => Promise<void>;
}

/**
 * A webhook receiver that records every request, on 127.0.0.1 unless given an address the test made itself (a
 * test host's link): tests never send traffic elsewhere.
 */
export async function startReceiver(address = '127.0.0.1'): Promise<Receiver> {
  const r = {
    requests: [] as Received[],
    respond: () => ({ status: 200, body: 'ok' }),
  } as unknown as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      r.requests.push(received);
      void Promise.resolve(r.respond(received)).then((answer) => {
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  r.url = `http://${address}:${(server.address() as AddressInfo).port}`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}
