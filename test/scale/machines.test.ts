import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_URL } from '../helpers/databases.js';
import { readSavedCredentials } from '../helpers/first-start.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import {
  Hosts,
  serveOn,
  nginxErrors,
  startNginx,
  startRedis,
  whyNoHosts,
  type Daemon,
  type Host,
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
  let nginx: Daemon & { prefix: string };
  let receiver: Receiver;
  const services: HostService[] = [];
  /** How each host's service was started, to start it again. */
  const starts: Array<{ host: Host; env: Record<string, string> }> = [];
  const PORT = 3000;
  let key = '';
  /** The owner's session cookie (`session=…`), made on the first host. */
  let session = '';

  beforeAll(async () => {
    const [a, b] = [hosts.add(), hosts.add()];
    database = await createScaleDatabase('postgres');
    redis = await startRedis(a.gateway);
    receiver = await startReceiver(a.gateway);
    const port = PORT;
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
      // Long enough for the writers of the rolling restart to meet the drain.
      CASEBOOK_DRAIN_SECONDS: '2',
    });
    starts.push({ host: a, env: env(fs.mkdtempSync(`${database.dataDir}/a-`)) });
    starts.push({ host: b, env: env(fs.mkdtempSync(`${database.dataDir}/b-`)) });
    // The first host makes the schema and the owner; the second finds them.
    const first = await serveOn(a, port, starts[0].env);
    services.push(first);
    services.push(await serveOn(b, port, starts[1].env));
    key = readSavedCredentials(starts[0].env.CASEBOOK_DATA_DIR)?.key ?? '';
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
  it('fails and loses no write through nginx while both hosts restart one after the other', async () => {
    const api = client(nginx.url, key);
    const { code, tcaseIds, runId } = await seedRun(api, 'ROLL', 20, 'Rolling');
    const WRITERS = 4;
    // A key per writer (made by the session above), so that no writer meets the rate limit of LIMIT a minute.
    const keys: string[] = [];
    for (let w = 0; w < WRITERS; w++) {
      const res = await fetch(`${nginx.url}${API}/users/me/api-keys`, {
        method: 'POST',
        headers: { cookie: session, origin: nginx.url, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `rolling ${w}` }),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      keys.push(((await res.json()) as { key: string }).key);
    }
    const acknowledged: string[] = [];
    const failed: string[] = [];
    let writing = true;
    /** One write a writer sends once, never again: anything but a 2xx is a failure. */
    const writer = async (w: number) => {
      for (let n = 0; writing; n++) {
        const comment = `roll-${w}-${n}`;
        try {
          const res = await fetch(`${nginx.url}${API}/project/${code}/run/${runId}/result/batch`, {
            method: 'POST',
            headers: { authorization: `ApiKey ${keys[w]}`, 'content-type': 'application/json' },
            body: JSON.stringify(resultBatch(tcaseIds, 2, comment, n)),
          });
          const text = await res.text();
          if (res.ok) acknowledged.push(comment);
          else failed.push(`${comment}: ${res.status} ${text}`);
        } catch (err) {
          failed.push(`${comment}: ${String(err)}`);
        }
        // About 2.5 writes a second per writer: under the limit of LIMIT a minute for the whole test.
        await new Promise((r) => setTimeout(r, 400));
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    const restarts: number[] = [];
    await new Promise((r) => setTimeout(r, 1_500));
    for (let i = 0; i < services.length; i++) {
      // SIGTERM: the host drains (2 s), then closes; nginx sends to the other one until it is back.
      restarts.push((await services[i].stop()) ?? -1);
      services[i] = await serveOn(starts[i].host, PORT, starts[i].env);
      // nginx skips a host for fail_timeout (5 s) after it refused a connection: the next one stops only once
      // the balancer sends here again, as docs/operations.md says.
      await new Promise((r) => setTimeout(r, 6_000));
    }
    writing = false;
    await Promise.all(writers);
    expect(restarts).toEqual([0, 0]);
    // nginx's own account of a failure (which host, what it met) comes with it.
    expect(failed, nginxErrors(nginx.prefix)).toEqual([]);
    const rows = await database.db
      .selectFrom('results')
      .select(['comment'])
      .where('run_id', '=', runId)
      .execute();
    const stored = new Map<string, number>();
    for (const r of rows) stored.set(r.comment, (stored.get(r.comment) ?? 0) + 1);
    expect(acknowledged.filter((c) => stored.get(c) !== 2)).toEqual([]);
    console.log(
      `[casebook] machines: ${acknowledged.length} writes through nginx during a rolling restart, 0 failed, 0 lost`,
    );
  }, 240_000);

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
