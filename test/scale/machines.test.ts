import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_URL } from '../helpers/databases.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import {
  Hosts,
  serveOn,
  startNginx,
  startRedis,
  whyNoHosts,
  type Daemon,
  type HostService,
} from './machines.js';
import {
  API,
  client,
  createScaleDatabase,
  ok,
  resultBatch,
  seedRun,
  waitUntil,
  type ScaleDatabase,
} from './servers.js';

/**
 * Issue 30's proof: two hosts (network namespaces with addresses of their own, test/scale/machines.ts) each run
 * the service on one PostgreSQL, reached through its Unix socket, with a Redis of the test's own for the rate
 * limits and Debian's nginx in front. Nothing is shared through a disk: each host has its own data directory and
 * files live in PostgreSQL. Runs as root only (skipped with a notice otherwise).
 */

const SOCKET_DIRS = ['/run/postgresql', '/var/run/postgresql', '/tmp'];
const LIMIT = 150;
const OWNER = { email: 'owner@machines.test', password: 'machines-test-password-1' };

/** The same database, reached through PostgreSQL's Unix socket (a namespace cannot reach the machine's 127.0.0.1). */
function socketUrl(url: string): string {
  const parsed = new URL(url);
  const dir = SOCKET_DIRS.find((d) => fs.existsSync(`${d}/.s.PGSQL.${parsed.port || 5432}`));
  if (!dir) throw new Error(`no PostgreSQL socket in ${SOCKET_DIRS.join(', ')}`);
  const user = decodeURIComponent(parsed.username || 'postgres');
  return `postgres://${user}@/${parsed.pathname.slice(1)}?host=${encodeURIComponent(dir)}&port=${parsed.port || 5432}`;
}

const why = whyNoHosts() ?? (POSTGRES_URL ? undefined : 'CASEBOOK_TEST_POSTGRES_URL is not set');
const title = 'two hosts behind nginx on one PostgreSQL';
if (why) console.log(`[casebook] ${title}: SKIPPED (${why})`);

(why ? describe.skip : describe)(why ? `${title} (SKIPPED: ${why})` : title, () => {
  const hosts = new Hosts();
  let database: ScaleDatabase;
  let redis: Daemon;
  let nginx: Daemon;
  let receiver: Receiver;
  const services: HostService[] = [];
  let key = '';
  /** The owner's session cookie (`session=…`), made on the first host. */
  let session = '';

  beforeAll(async () => {
    const [a, b] = [hosts.add(), hosts.add()];
    database = await createScaleDatabase('postgres');
    redis = await startRedis(a.gateway);
    receiver = await startReceiver(a.gateway);
    const port = 3000;
    nginx = await startNginx([`${a.address}:${port}`, `${b.address}:${port}`]);
    const env = (dataDir: string): Record<string, string> => ({
      CASEBOOK_DATABASE_URL: socketUrl(database.url),
      CASEBOOK_DATA_DIR: dataDir,
      CASEBOOK_FILE_STORAGE: 'postgres',
      CASEBOOK_SECRET_KEY: 'machines-test-secret-key-0123456789',
      CASEBOOK_REDIS_URL: redis.url,
      CASEBOOK_RATE_LIMIT: String(LIMIT),
      CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true',
      CASEBOOK_PUBLIC_URL: nginx.url,
      CASEBOOK_OWNER_EMAIL: OWNER.email,
      CASEBOOK_OWNER_PASSWORD: OWNER.password,
    });
    // The first host makes the schema and the owner; the second finds them.
    const first = await serveOn(a, port, env(fs.mkdtempSync(`${database.dataDir}/a-`)));
    services.push(first);
    services.push(await serveOn(b, port, env(fs.mkdtempSync(`${database.dataDir}/b-`))));
    key = /API key:\s+(\S+)/.exec(first.output())?.[1] ?? '';
    expect(key, first.output()).not.toBe('');
  }, 240_000);

  afterAll(async () => {
    await Promise.all(services.map((s) => s.kill()));
    await nginx?.stop();
    await redis?.stop();
    await receiver?.close();
    hosts.remove();
    await database?.drop();
  }, 60_000);

  it('serves through the balancer from both hosts', async () => {
    const api = client(nginx.url, key);
    ok(await api.post('/project', { code: 'MCH', title: 'Machines' }), 'create project');
    const seen = await Promise.all(services.map((s) => client(s.url, key).get('/project/MCH')));
    expect(seen.map((r) => r.status)).toEqual([200, 200]);
  });

  it('accepts a session made on one host on the other', async () => {
    const [a, b] = services;
    const login = await fetch(`${a.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(OWNER),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('session='));
    expect(cookie).toBeDefined();
    const me = await fetch(`${b.url}${API}/users/me`, { headers: { cookie: cookie!.split(';')[0] } });
    expect(me.status).toBe(200);
    expect((await me.json()).user.email).toBe(OWNER.email);
    session = cookie!.split(';')[0];
  });

  it('downloads through one host a file uploaded through the other, byte for byte', async () => {
    const [a, b] = services;
    const body = crypto.randomBytes(3 * 1024 * 1024 + 17);
    const form = new FormData();
    form.append('file', new Blob([body]), 'trace.bin');
    const up = await fetch(`${a.url}${API}/file`, {
      method: 'POST',
      headers: { authorization: `ApiKey ${key}` },
      body: form,
    });
    expect(up.status).toBe(201);
    const { id } = (await up.json()) as { id: string };
    const down = await fetch(`${b.url}${API}/file/${id}`, { headers: { authorization: `ApiKey ${key}` } });
    expect(down.status).toBe(200);
    const got = Buffer.from(await down.arrayBuffer());
    expect(got.length).toBe(body.length);
    expect(got.equals(body)).toBe(true);
  });

  it('delivers every webhook event once while both hosts are healthy', async () => {
    const api = client(nginx.url, key);
    const { code, tcaseIds, runId } = await seedRun(api, 'HOOK', 12, 'Hooks');
    ok(
      await api.post('/webhook', {
        name: 'Receiver',
        endpoint: `${receiver.url}/hook`,
        secret: 'machines-hook-secret',
        eventTypes: ['results_created'],
      }),
      'create webhook',
    );
    const batches = 12;
    for (let i = 0; i < batches; i++) {
      // Straight to each host in turn: both hosts' job runners see every event in the shared queue.
      const host = client(services[i % 2].url, key);
      ok(
        await host.post(`/project/${code}/run/${runId}/result/batch`, resultBatch(tcaseIds, 3, `h${i}`, i)),
        'batch',
      );
    }
    await waitUntil(
      () => new Set(receiver.requests.map((r) => r.headers['x-casebook-event-id'])).size >= batches,
      'every event',
      60_000,
      () => `${receiver.requests.length} deliveries arrived`,
    );
    // Time for a second delivery of any event to show up, if the hosts were to send one twice.
    await new Promise((r) => setTimeout(r, 2_000));
    const ids = receiver.requests.map((r) => r.headers['x-casebook-event-id']);
    expect(ids).toHaveLength(batches);
    expect(new Set(ids).size).toBe(batches);
  });

  it("holds one API key's rate limit across both hosts", async () => {
    // A key of its own, so the limit counts only this test's requests.
    // API keys are made by a person signed in (D2): the session of the test above, through the balancer.
    const res = await fetch(`${nginx.url}${API}/users/me/api-keys`, {
      method: 'POST',
      headers: { cookie: session, origin: nginx.url, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'rate limit' }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const fresh: string = ((await res.json()) as { key: string }).key;
    expect(fresh).toBeTruthy();
    const statuses: number[] = [];
    // Alternately straight to each host: one key, two processes, one count in Redis.
    for (let i = 0; i < LIMIT + 4; i++) {
      const res = await fetch(`${services[i % 2].url}${API}/project`, {
        headers: { authorization: `ApiKey ${fresh}` },
      });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT)).toEqual([429, 429, 429, 429]);
  });
  it('loses no acknowledged result and records nothing twice when a host is killed mid-batches', async () => {
    const api = client(nginx.url, key);
    const { code, tcaseIds, runId } = await seedRun(api, 'KILL', 40, 'Kill');
    const BATCHES = 24;
    const SIZE = 40;
    let acknowledged = 0;
    let retried = 0;
    let killed: Promise<void> | undefined;
    /** One batch, sent through the balancer until it is acknowledged, always with the same Idempotency-Key. */
    const send = async (i: number) => {
      const body = JSON.stringify(resultBatch(tcaseIds, SIZE, `kill-${i}`, i));
      const idempotencyKey = `batch-${i}-${crypto.randomUUID()}`;
      for (let attempt = 0; ; attempt++) {
        if (attempt > 40) throw new Error(`batch ${i} was never acknowledged`);
        try {
          const res = await fetch(`${nginx.url}${API}/project/${code}/run/${runId}/result/batch`, {
            method: 'POST',
            headers: {
              authorization: `ApiKey ${key}`,
              'content-type': 'application/json',
              'idempotency-key': idempotencyKey,
            },
            body,
          });
          await res.arrayBuffer();
          if (res.status === 200 || res.status === 201) {
            acknowledged++;
            // The first host dies with batches in flight, a third of the way through.
            if (acknowledged === BATCHES / 3) killed = services[0].kill();
            return;
          }
          // 502/504 from the balancer (the host died holding the request), 409 while the key's first
          // attempt is still being answered: both mean "try again with the same key".
          expect([409, 502, 503, 504], `batch ${i}: ${res.status}`).toContain(res.status);
        } catch {
          // the balancer's connection dropped
        }
        retried++;
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    // Three clients at once, so that requests are in flight on the first host when it dies.
    let next = 0;
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        while (next < BATCHES) await send(next++);
      }),
    );
    await killed;
    expect(acknowledged).toBe(BATCHES);
    const rows = await database.db
      .selectFrom('results')
      .select(['comment'])
      .where('run_id', '=', runId)
      .execute();
    const perBatch = new Map<string, number>();
    for (const r of rows) perBatch.set(r.comment, (perBatch.get(r.comment) ?? 0) + 1);
    // Every batch whole, once: no half batch, no batch twice.
    expect(rows).toHaveLength(BATCHES * SIZE);
    expect([...perBatch.values()].every((n) => n === SIZE)).toBe(true);
    expect(perBatch.size).toBe(BATCHES);
    console.log(`[casebook] machines: ${retried} retries after the kill reached the surviving host`);
  });
});
