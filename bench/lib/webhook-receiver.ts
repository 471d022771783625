import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook receiver on 127.0.0.1 for the benchmark: answers 200 and counts distinct events per run. */
export async function startWebhookReceiver() {
  const byRun = new Map<number, Set<string>>();
  let requests = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests++;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const runId = Number(body.object?.runId);
        let set = byRun.get(runId);
        if (!set) byRun.set(runId, (set = new Set()));
        set.add(String(req.headers['x-casebook-event-id']));
      } catch {
        // counted as a request only
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    events: (runId: number) => byRun.get(runId)?.size ?? 0,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
