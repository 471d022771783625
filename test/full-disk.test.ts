import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { firstStart } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { createDb, type Db } from '../src/db/create-db.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { uniqueProjectCode } from './helpers/codes.js';
import { seedRun } from './helpers/seed-run.js';

/**
 * A real full disk: the data directory (SQLite database and file store) on a 24 MiB tmpfs that the test fills.
 * Mounting needs root (as on CI); elsewhere the test is skipped with a notice.
 */
const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-full-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mountPoint], { stdio: 'ignore' });
  mounted = true;
} catch {
  console.log(`[casebook] full-disk test SKIPPED: cannot mount a tmpfs (needs root) at ${mountPoint}`);
}

describe.skipIf(!mounted)('a full disk under the data directory [sqlite]', () => {
  let app: FastifyInstance;
  let db: Db;
  let base: string;
  let key: string;
  let code: string;
  let runId: number;
  let tcaseIds: string[];
  const log = new PassThrough();
  let logText = '';
  log.on('data', (c: Buffer) => (logText += c.toString()));
  const filler = path.join(mountPoint, 'filler');

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${base}/api/public/v0${url}`, {
      method,
      headers: { authorization: `ApiKey ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
  const upload = async (bytes: number) => {
    const form = new FormData();
    form.append('files', new Blob([Buffer.alloc(bytes, 7)]), 'evidence.bin');
    const res = await fetch(`${base}/api/public/v0/file/batch`, {
      method: 'POST',
      headers: { authorization: `ApiKey ${key}` },
      body: form,
    });
    return { status: res.status, body: await res.json() };
  };
  /**
   * An upload over one kept-alive connection (an agent with a single socket), then a GET on that same connection:
   * the GET answers only when the server read the rest of the refused upload's body instead of leaving it stalled.
   */
  const uploadThenGet = async (bytes: number) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const boundary = 'casebook-full-disk';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const send = (method: string, url: string, body?: Buffer) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = http.request(
          `${base}${url}`,
          {
            method,
            agent,
            headers: {
              authorization: `ApiKey ${key}`,
              ...(body ? { 'content-type': `multipart/form-data; boundary=${boundary}` } : {}),
            },
          },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
          },
        );
        req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${url}: no answer in 10 s`)));
        req.on('error', reject);
        req.end(body);
      });
    try {
      const up = await send(
        'POST',
        '/api/public/v0/file/batch',
        Buffer.concat([head, Buffer.alloc(bytes, 7), tail]),
      );
      const after = await send('GET', '/api/public/v0/project');
      return { up, after };
    } finally {
      agent.destroy();
    }
  };
  const batch = () =>
    api('POST', `/project/${code}/run/${runId}/result/batch`, {
      items: tcaseIds.map((tcaseId) => ({
        tcaseId,
        status: 'passed',
        comment: `<p>${'x'.repeat(20_000)}</p>`,
      })),
    });
  const storedResults = async () =>
    Number(
      (
        await db
          .selectFrom('results')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    const config = loadConfig({
      CASEBOOK_LOG_LEVEL: 'error',
      CASEBOOK_DATA_DIR: mountPoint,
      CASEBOOK_SECRET_KEY: 'test-secret-key-0123456789',
      CASEBOOK_PUBLIC_URL: 'http://casebook.test',
    });
    db = createDb(config.databaseUrl);
    await migrateToLatest(db);
    key = (await firstStart(db, config))!.apiKey;
    app = await buildApp({ config, db, logStream: log, webRoot: null });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    code = uniqueProjectCode('F');
    ({ tcaseIds, runId } = await seedRun(api, code, 'Full disk', 20));
  });

  afterAll(async () => {
    try {
      // A stalled connection must not keep the tmpfs mounted: closing gets a few seconds, then it is let go.
      await Promise.race([app?.close(), new Promise((r) => setTimeout(r, 5000))]);
      await db?.destroy();
    } finally {
      if (mounted) execFileSync('umount', ['-l', mountPoint]);
      fs.rmSync(mountPoint, { recursive: true, force: true });
    }
  });

  it('answers 507 STORAGE_FULL to uploads and result batches without resetting the connection, stores nothing, reports it on /readyz, and recovers once space is freed', async () => {
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const before = await storedResults();
    // Fill the file system to the last byte.
    const fd = fs.openSync(filler, 'w');
    const chunk = Buffer.alloc(1024 * 1024);
    try {
      for (;;) fs.writeSync(fd, chunk);
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }
    try {
      for (;;) fs.writeSync(fd, chunk, 0, 512);
    } catch {
      // the last bytes are taken too
    }
    fs.closeSync(fd);

    // 5 MiB: the server answers while the client is still sending; the answer arrives all the same, and the
    // connection serves the next request.
    const { up, after } = await uploadThenGet(5 * 1024 * 1024);
    expect(up.status).toBe(507);
    expect(up.body).toEqual({ code: 'STORAGE_FULL', message: expect.stringMatching(/storage is full/) });
    expect(after.status).toBe(200);
    const res = await batch();
    expect(res.status).toBe(507);
    expect(res.body).toEqual({ code: 'STORAGE_FULL', message: expect.stringMatching(/storage is full/) });
    // The log carries the real cause, not the rollback issued after SQLite had rolled back by itself.
    expect(logText).toMatch(/SQLITE_FULL|database or disk is full/);
    expect(logText).not.toMatch(/cannot rollback/);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(507);
    expect(await ready.json()).toMatchObject({ code: 'STORAGE_FULL' });

    expect(await storedResults()).toBe(before);
    const leftovers = fs.readdirSync(path.join(mountPoint, 'files', '.tmp'));
    expect(leftovers).toEqual([]);

    fs.rmSync(filler);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await upload(5 * 1024 * 1024)).status).toBe(201);
    const again = await batch();
    expect(again.status).toBe(201);
    expect(await storedResults()).toBe(before + tcaseIds.length);
  });
});
