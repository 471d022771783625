import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app.js';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../test/helpers/tcase-factories.js';
import { createRun } from '../../../test/helpers/run-factories.js';
import { purgeExpiredIdempotencyKeys } from './idempotency.service.js';

describeEachDb('Idempotency-Key on the result endpoints', (t) => {
  let P: { id: string; code: string; title: string };
  let tcases: { id: string; seq: number }[];
  let second: FastifyInstance;
  let n = 0;
  const newKey = () => `key-${Date.now().toString(36)}-${n++}`;

  const singleUrl = (runId: number, ref: string) => `/project/${P.code}/run/${runId}/tcase/${ref}/result`;
  const batchUrl = (runId: number) => `/project/${P.code}/run/${runId}/result/batch`;
  const withKey = (key: string, apiKey?: string) => ({ headers: { 'idempotency-key': key }, key: apiKey });
  const resultsOf = async (runId: number) =>
    Number(
      (
        await t.db
          .selectFrom('results')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('run_id', '=', runId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const records = async () =>
    Number(
      (
        await t.db
          .selectFrom('idempotency_keys')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** The same request through a second app instance on the same database (its own group commit). */
  const postViaSecond = async (url: string, body: unknown, key: string) => {
    const res = await second.inject({
      method: 'POST',
      url: `/api/public/v0${url}`,
      headers: {
        authorization: `ApiKey ${t.ownerKey}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      payload: JSON.stringify(body),
    });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };

  beforeAll(async () => {
    P = await createProject(t);
    const folder = await createFolder(t, P, ['F']);
    tcases = [];
    for (let i = 0; i < 3; i++) tcases.push(await createTcase(t, P, { folderId: folder }));
    second = await buildApp({ config: t.config, db: t.db });
  });
  afterAll(async () => {
    await second?.close();
  });

  const newRun = async () => (await createRun(t, P, { tcaseIds: tcases.map((c) => c.id) })).id;

  describe('POST …/tcase/:tcase/result', () => {
    it('answers a retry with the same key with the first answer and stores nothing new', async () => {
      const runId = await newRun();
      const key = newKey();
      const body = { status: 'passed', comment: 'ok' };
      const first = await t.post(singleUrl(runId, tcases[0].id), body, withKey(key));
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const again = await t.post(singleUrl(runId, tcases[0].id), body, withKey(key));
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(await resultsOf(runId)).toBe(1);
      const other = await t.post(singleUrl(runId, tcases[0].id), body, withKey(newKey()));
      expect(other.status).toBe(201);
      expect(other.body.id).not.toBe(first.body.id);
      expect(await resultsOf(runId)).toBe(2);
    });

    it('answers 409 for the same key with another body, and stores nothing', async () => {
      const runId = await newRun();
      const key = newKey();
      expect((await t.post(singleUrl(runId, tcases[0].id), { status: 'passed' }, withKey(key))).status).toBe(
        201,
      );
      const res = await t.post(singleUrl(runId, tcases[0].id), { status: 'failed' }, withKey(key));
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('CONFLICT');
      expect(res.body.message).toMatch(/Idempotency-Key .* different request body/);
      expect(await resultsOf(runId)).toBe(1);
    });

    it('scopes a key by caller and by path', async () => {
      const runId = await newRun();
      const key = newKey();
      const runner = await userWithKey(t, 'test-runner');
      await t.post(`/project/${P.code}/member`, { userId: runner.user.id });
      const body = { status: 'passed' };
      const a = await t.post(singleUrl(runId, tcases[0].id), body, withKey(key));
      const b = await t.post(singleUrl(runId, tcases[0].id), body, withKey(key, runner.key));
      const c = await t.post(singleUrl(runId, tcases[1].id), body, withKey(key));
      expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
      expect(new Set([a.body.id, b.body.id, c.body.id]).size).toBe(3);
      expect(await resultsOf(runId)).toBe(3);
    });

    it('stores a record only when the header is sent, and remembers no error answer', async () => {
      const runId = await newRun();
      const before = await records();
      expect((await t.post(singleUrl(runId, tcases[0].id), { status: 'passed' })).status).toBe(201);
      expect(await records()).toBe(before);
      const key = newKey();
      const missing = await t.post(singleUrl(runId, 'NOPE-404'), { status: 'passed' }, withKey(key));
      expect(missing.status).toBe(404);
      expect(await records()).toBe(before);
    });

    it('answers 400 for a key that is not 1-255 visible ASCII characters', async () => {
      const runId = await newRun();
      const res = await t.post(
        singleUrl(runId, tcases[0].id),
        { status: 'passed' },
        withKey('x'.repeat(256)),
      );
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(await resultsOf(runId)).toBe(0);
    });

    it('stores one result for concurrent requests with one key (group commit and a second app), all get its answer', async () => {
      const runId = await newRun();
      const key = newKey();
      const body = { status: 'failed', comment: 'flaky' };
      // Other keys in the same group commit are stored beside it.
      const others = [newKey(), newKey()];
      const answers = await Promise.all([
        ...Array.from({ length: 6 }, () => t.post(singleUrl(runId, tcases[0].id), body, withKey(key))),
        ...Array.from({ length: 3 }, () => postViaSecond(singleUrl(runId, tcases[0].id), body, key)),
        ...others.map((k) => t.post(singleUrl(runId, tcases[1].id), body, withKey(k))),
      ]);
      const same = answers.slice(0, 9);
      expect(same.map((a) => a.status)).toEqual(Array(9).fill(201));
      expect(new Set(same.map((a) => a.body.id)).size).toBe(1);
      expect(answers.slice(9).map((a) => a.status)).toEqual([201, 201]);
      expect(await resultsOf(runId)).toBe(3);
      const run = (await t.get(`/project/${P.code}/run`)).body.runs.find(
        (r: { id: number }) => r.id === runId,
      );
      expect(run.statusCounts).toMatchObject({ all: 3, failed: 2, open: 1 });
    });
  });

  describe('POST …/result/batch', () => {
    it('answers a retried batch with the first ids and stores nothing new', async () => {
      const runId = await newRun();
      const key = newKey();
      const body = { items: tcases.map((c) => ({ tcaseId: c.id, status: 'passed' })) };
      const first = await t.post(batchUrl(runId), body, withKey(key));
      expect(first.status).toBe(201);
      const again = await t.post(batchUrl(runId), body, withKey(key));
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(await resultsOf(runId)).toBe(3);
      const changed = await t.post(
        batchUrl(runId),
        { items: [{ tcaseId: tcases[0].id, status: 'failed' }] },
        withKey(key),
      );
      expect(changed.status).toBe(409);
      expect(await resultsOf(runId)).toBe(3);
    });

    it('stores one batch for concurrent batches with one key, across two app instances', async () => {
      const runId = await newRun();
      const key = newKey();
      const body = { items: tcases.map((c) => ({ tcaseId: c.id, status: 'blocked' })) };
      const answers = await Promise.all([
        t.post(batchUrl(runId), body, withKey(key)),
        postViaSecond(batchUrl(runId), body, key),
        t.post(batchUrl(runId), body, withKey(key)),
        postViaSecond(batchUrl(runId), body, key),
      ]);
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
      expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
      expect(await resultsOf(runId)).toBe(3);
    });
  });

  describe('expiry', () => {
    it('treats a key older than 24 hours as new, and the purge removes expired records in bounded batches', async () => {
      const runId = await newRun();
      const key = newKey();
      const body = { status: 'passed' };
      const first = await t.post(singleUrl(runId, tcases[0].id), body, withKey(key));
      const past = new Date(Date.now() - 1000).toISOString();
      await t.db
        .updateTable('idempotency_keys')
        .set({ expires_at: past })
        .where('idem_key', '=', key)
        .execute();
      const later = await t.post(singleUrl(runId, tcases[0].id), body, withKey(key));
      expect(later.status).toBe(201);
      expect(later.body.id).not.toBe(first.body.id);
      expect(await resultsOf(runId)).toBe(2);

      const expired: string[] = [];
      for (let i = 0; i < 5; i++) {
        const k = newKey();
        expired.push(k);
        await t.post(singleUrl(runId, tcases[1].id), body, withKey(k));
      }
      await t.db
        .updateTable('idempotency_keys')
        .set({ expires_at: past })
        .where('idem_key', 'in', expired)
        .execute();
      const kept = await records();
      expect(await purgeExpiredIdempotencyKeys(t.db, { batchSize: 2 })).toBe(5);
      expect(await records()).toBe(kept - 5);
      const stillThere = await t.db
        .selectFrom('idempotency_keys')
        .select('idem_key')
        .where('idem_key', '=', key)
        .execute();
      expect(stillThere).toHaveLength(1);
    });
  });
});
