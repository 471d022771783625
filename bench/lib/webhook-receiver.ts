import { spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * A webhook receiver on 127.0.0.1 for the benchmark, in a process of its own: answers 200 and counts distinct
 * events per run. In the load generator's process it would take CPU from autocannon and lower the very
 * throughput it is compared with.
 */
const CHILD = `
import http from 'node:http';
const byRun = new Map();
let requests = 0;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.url === '/__stats') {
      const runs = Object.fromEntries([...byRun].map(([k, v]) => [k, v.size]));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ requests, runs }));
      return;
    }
    requests++;
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const runId = Number(body.object?.runId);
      let set = byRun.get(runId);
      if (!set) byRun.set(runId, (set = new Set()));
      set.add(String(req.headers['x-casebook-event-id']));
    } catch {}
    res.writeHead(200).end('ok');
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

export async function startWebhookReceiver() {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const url = `http://127.0.0.1:${line.toString().trim()}`;
  const stats = async () =>
    (await (await fetch(`${url}/__stats`)).json()) as { requests: number; runs: Record<string, number> };
  return {
    url,
    events: async (runId: number) => (await stats()).runs[String(runId)] ?? 0,
    requests: async () => (await stats()).requests,
    close: async () => {
      child.kill();
      await once(child, 'exit');
    },
  };
}
