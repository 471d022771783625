import { afterAll, describe, expect, it } from 'vitest';
import { POSTGRES_URL } from '../helpers/databases.js';
import {
  POSTGRES_SKIP_NOTE,
  client,
  countsFromResults,
  countsFromRunTcases,
  createScaleDatabase,
  getRun,
  killLeftovers,
  ok,
  resultBatch,
  seedRun,
  startServer,
  type ScaleDatabase,
} from './servers.js';

/**
 * The server is killed with SIGKILL while result batches pour in (D11: a batch is one
 * transaction). After a restart on the same database, every acknowledged result is there exactly once, no batch
 * is half-written, and the status counters agree with the stored results.
 */

const BATCH = 200;
const CLIENTS = 6;
/** The kill comes after this many acknowledged batches, while the other clients' batches are in flight. */
const KILL_AFTER_ACKS = 10;
/** No loop runs unbounded, whatever happens to the server. */
const MAX_BATCHES = 200;

interface Sent {
  comment: string;
  ids?: number[];
}

for (const target of ['sqlite', 'postgres'] as const) {
  const title = `a server killed (SIGKILL) during batch ingestion on ${target === 'sqlite' ? 'SQLite (a file)' : 'PostgreSQL'}`;
  const skip = target === 'postgres' && !POSTGRES_URL;

  (skip ? describe.skip : describe)(skip ? `${title} (${POSTGRES_SKIP_NOTE})` : title, () => {
    let database: ScaleDatabase | undefined;

    afterAll(async () => {
      killLeftovers();
      await database?.drop();
    }, 60_000);

    it('keeps every acknowledged result exactly once, writes no batch by halves, and keeps the counters true after a restart', async () => {
      database = await createScaleDatabase(target);
      const first = await startServer({ databaseUrl: database.url, dataDir: database.dataDir });
      const key = first.bannerKey();
      expect(key, first.output()).toBeDefined();
      const api = client(first.url, key!);
      const { code, tcaseIds, runId } = await seedRun(api, 'CRS', 60, 'Crash');

      const sent: Sent[] = [];
      let acks = 0;
      let stopping = false;
      let inFlightAtKill = -1;
      let inFlight = 0;
      let killed: Promise<void> | undefined;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (!stopping && sent.length < MAX_BATCHES) {
            const entry: Sent = { comment: `crash batch ${sent.length}` };
            const salt = sent.length;
            sent.push(entry);
            inFlight++;
            try {
              const reply = await api.post(
                `/project/${code}/run/${runId}/result/batch`,
                resultBatch(tcaseIds, BATCH, entry.comment, salt),
              );
              // Anything but 201 before the kill is a failure of its own, not of crash safety.
              if (reply.status !== 201) throw new Error(`${reply.status} ${JSON.stringify(reply.body)}`);
              entry.ids = reply.body.ids;
              if (++acks === KILL_AFTER_ACKS && !killed) {
                stopping = true;
                inFlightAtKill = inFlight - 1;
                killed = first.kill();
              }
            } catch (err) {
              // The connection dies with the server; the batch was not acknowledged.
              if (!stopping) throw err;
            } finally {
              inFlight--;
            }
          }
        }),
      );
      await killed;
      expect(inFlightAtKill, 'batches were in flight when the server died').toBeGreaterThan(0);

      const second = await startServer({ databaseUrl: database.url, dataDir: database.dataDir });
      try {
        const acknowledged = sent.filter((s) => s.ids);
        expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);

        const stored = await database.db
          .selectFrom('results')
          .select(['id', 'comment'])
          .where('run_id', '=', runId)
          .execute();
        const perBatch = new Map<string, number>();
        for (const r of stored) perBatch.set(r.comment, (perBatch.get(r.comment) ?? 0) + 1);
        // No batch half-written: each is all there or not at all.
        for (const s of sent) expect([0, BATCH], s.comment).toContain(perBatch.get(s.comment) ?? 0);
        expect([...perBatch.keys()].every((c) => sent.some((s) => s.comment === c))).toBe(true);
        // Every acknowledged result is there, under its batch, exactly once.
        const commentOf = new Map(stored.map((r) => [r.id, r.comment]));
        for (const s of acknowledged) {
          expect(s.ids).toHaveLength(BATCH);
          expect(new Set(s.ids).size).toBe(BATCH);
          expect(
            s.ids!.filter((id) => commentOf.get(id) !== s.comment),
            `${s.comment}: acknowledged ids missing`,
          ).toEqual([]);
        }
        expect(new Set(stored.map((r) => r.id)).size).toBe(stored.length);

        // Each run test case points at its latest result, and the counters equal what the results say.
        const latest = new Map<string, number>();
        const byTcase = await database.db
          .selectFrom('results')
          .select(['id', 'tcase_id'])
          .where('run_id', '=', runId)
          .execute();
        for (const r of byTcase) latest.set(r.tcase_id, Math.max(latest.get(r.tcase_id) ?? 0, r.id));
        const rows = await database.db
          .selectFrom('run_tcases')
          .select(['tcase_id', 'latest_result_id'])
          .where('run_id', '=', runId)
          .execute();
        for (const row of rows)
          expect(row.latest_result_id ?? 0, row.tcase_id).toBe(latest.get(row.tcase_id) ?? 0);

        const api2 = client(second.url, key!);
        const expected = await countsFromResults(database.db, runId);
        expect(expected.all).toBe(tcaseIds.length);
        expect((await getRun(api2, code, runId)).statusCounts).toEqual(expected);
        const listed = ok(
          await api2.get(`/project/${code}/run/${runId}/tcase`),
          'list run test cases',
        ).tcases;
        expect(countsFromRunTcases(listed)).toEqual(expected);

        // The restarted server takes results again, and counts them.
        const after = await api2.post(
          `/project/${code}/run/${runId}/result/batch`,
          resultBatch(tcaseIds, BATCH, 'after restart', 1),
        );
        expect(after.status, JSON.stringify(after.body)).toBe(201);
        expect((await getRun(api2, code, runId)).statusCounts).toEqual(
          await countsFromResults(database.db, runId),
        );
      } finally {
        expect(await second.stop()).toBe(0);
      }
    }, 180_000);
  });
}
