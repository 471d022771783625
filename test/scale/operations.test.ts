import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createScaleDatabase,
  killLeftovers,
  startServer,
  type ScaleDatabase,
  type ServerProcess,
} from './servers.js';

/**
 * Operating several processes: `serve --workers 2` answers `/metrics` with the sum of both workers,
 * and on SIGTERM every worker drains (not ready, still serving) before it closes and the service exits 0. One
 * database (SQLite file) suffices: neither depends on it.
 */

const TOKEN = 'scale-metrics-token-0123456789';
const REQUESTS = 24;

/** A GET on a connection of its own, so node:cluster hands each to the next worker in turn. */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

describe('serve --workers 2: metrics summed across workers, and draining on SIGTERM', () => {
  let database: ScaleDatabase;
  let server: ServerProcess;
  let key: string;

  beforeAll(async () => {
    database = await createScaleDatabase('sqlite');
    server = await startServer({
      databaseUrl: database.url,
      dataDir: database.dataDir,
      workers: 2,
      logLevel: 'info',
      // Long enough to see the drain from here; the test waits for the exit, never for a time.
      env: { CASEBOOK_METRICS_TOKEN: TOKEN, CASEBOOK_DRAIN_SECONDS: '4' },
    });
    key = server.bannerKey()!;
    // startServer returns once one worker answers; the other may still be starting.
    while (server.output().split('"msg":"casebook listening"').length - 1 < 2) {
      if (server.childPids().length < 2) throw new Error(`a worker is missing:\n${server.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 120_000);

  afterAll(async () => {
    killLeftovers();
    await database?.drop();
  });

  it('answers every scrape with the requests of both workers added up', async () => {
    for (let i = 0; i < REQUESTS; i++) {
      const res = await get(`${server.url}/api/public/v0/project`, { authorization: `ApiKey ${key}` });
      expect(res.status).toBe(200);
    }
    const pattern =
      /casebook_http_requests_total\{method="GET",route="\/api\/public\/v0\/project",status="200"\} (\d+)/;
    // Every scrape, whichever worker takes it, sees the whole service.
    for (let i = 0; i < 4; i++) {
      const scrape = await get(`${server.url}/metrics`, { authorization: `Bearer ${TOKEN}` });
      expect(scrape.status).toBe(200);
      expect(Number(pattern.exec(scrape.body)?.[1]), scrape.body.slice(0, 2000)).toBe(REQUESTS);
    }
    // Both workers served some (each has its own pid in the log's request lines).
    const pids = new Set(
      server
        .output()
        .split('\n')
        .filter((l) => l.includes('"url":"/api/public/v0/project"'))
        .map((l) => JSON.parse(l).pid as number),
    );
    expect(pids.size).toBe(2);
  });

  it('stops being ready at once on SIGTERM, keeps serving while it drains, then exits 0', async () => {
    process.kill(server.pid, 'SIGTERM');
    // Both workers drain: fresh connections go to each in turn, and none says ready any more.
    let ready = true;
    while (ready) ready = (await get(`${server.url}/readyz`)).status === 200;
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(`${server.url}/readyz`));
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503, 503]);
    expect(JSON.parse(answers[0].body)).toEqual({
      code: 'NOT_READY',
      message: expect.stringMatching(/shutting down/),
    });
    const served = await get(`${server.url}/api/public/v0/project`, { authorization: `ApiKey ${key}` });
    expect(served.status).toBe(200);
    expect(await server.exited).toBe(0);
    const phases = (phase: string) => server.output().split(`"msg":"${phase}`).length - 1;
    expect(phases('draining'), server.output()).toBe(2);
    expect(phases('closing')).toBe(2);
    expect(phases('closed')).toBe(2);
  });
});
