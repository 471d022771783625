import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describeEachDb, type TestEnv } from '../../../../test/helpers/test-app.js';
import { createProject } from '../../../../test/helpers/factories.js';
import {
  exportArchive,
  importArchive,
  populate,
  postArchive,
  records,
} from '../../../../test/helpers/archive-factories.js';
import { claimJobs } from '../../../outbox/outbox.js';
import { createJobRunner } from '../../../jobs/index.js';
import { HeldLease } from '../../../jobs/lease.js';
import { LocalDiskStorage } from '../../files/files.storage.js';
import { projectImportJob } from './archive.job.js';
import { PROJECT_IMPORT_JOB } from './archive.service.js';
import { jobEnv } from '../../../jobs/index.js';

/*
 * Issue 29: an archive import that fails part-way, or dies part-way, leaves nothing of itself behind (the project,
 * the accounts it made, the files it stored with their bodies, the custom field it made, the status it turned on),
 * and the next try succeeds once.
 */

/** The row count of every table of the database. */
async function tableCounts(t: TestEnv): Promise<Record<string, number>> {
  const names =
    t.dbName === 'postgres'
      ? (
          await sql<{
            name: string;
          }>`select tablename as name from pg_tables where schemaname = 'public'`.execute(t.db)
        ).rows
      : (
          await sql<{
            name: string;
          }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(t.db)
        ).rows;
  const out: Record<string, number> = {};
  for (const { name } of names)
    out[name] = Number(
      (await sql<{ n: number }>`select count(*) as n from ${sql.table(name)}`.execute(t.db)).rows[0].n,
    );
  return out;
}

/** File bodies in local storage (uploads in `imports/` aside). */
function bodies(t: TestEnv): string[] {
  const root = path.join(t.config.dataDir, 'files');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((f) => !f.startsWith('.tmp') && !f.startsWith('imports'))
    .filter((f) => fs.statSync(path.join(root, f)).isFile())
    .sort();
}

/** What the import writes outside the project's own rows, read whole. */
const outside = async (t: TestEnv) => ({
  users: await t.db.selectFrom('users').selectAll().orderBy('id').execute(),
  files: await t.db.selectFrom('files').selectAll().orderBy('id').execute(),
  fields: await t.db.selectFrom('custom_fields').selectAll().orderBy('id').execute(),
  statuses: await t.db.selectFrom('statuses').selectAll().orderBy('id').execute(),
});

/** Counts after minus counts before, tables that did not change left out. */
const delta = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.keys(after)
      .map((k) => [k, after[k] - (before[k] ?? 0)] as const)
      .filter(([, d]) => d !== 0),
  );

describeEachDb(
  'project archive: a failed or dead attempt leaves nothing, and the retry succeeds once',
  (t) => {
    let lines: string[];
    let field: string;
    /** The file bodies one import of the archive stores: a case's file and a result's. */
    let filesInArchive: number;

    beforeAll(async () => {
      const project = await createProject(t, { title: 'Retried', overviewTitle: 'Retried' });
      field = (await populate(t, project)).field;
      const res = await exportArchive(t, project.code);
      expect(res.status).toBe(200);
      lines = gunzipSync(res.bytes).toString().trim().split('\n');
      filesInArchive = lines.filter((l) => JSON.parse(l).t === 'file').length;
    });
    afterEach(() => vi.restoreAllMocks());

    /**
     * The archive as if from another service: its people and its custom field unknown here (so the import makes
     * accounts and a field), and a status turned on that is off here (so it writes a status).
     */
    function foreign(prefix: string, change: (r: any) => any = (r) => r): Buffer {
      const emails = lines
        .map((l) => JSON.parse(l))
        .filter((r) => r.t === 'person')
        .map((r) => r.email);
      const out = lines.map((l) => {
        let text = l.replaceAll(field, `${prefix}_${field}`);
        for (const e of emails) text = text.replaceAll(`"${e}"`, `"${prefix}.${e}"`);
        const r = JSON.parse(text);
        return JSON.stringify(change(r.t === 'status' && r.id === 'custom2' ? { ...r, isActive: 1 } : r));
      });
      return gzipSync(out.join('\n') + '\n');
    }

    it('takes back every row and file body of an attempt that fails part-way, then imports once on a retry', async () => {
      const counts = await tableCounts(t);
      const rows = await outside(t);
      const stored = bodies(t);
      // A late record names a step the archive does not hold: found only while writing, after the people, the
      // field, the status, the file and the cases are written.
      const broken = foreign('a', (r) =>
        r.t === 'tcaseVersion' && r.steps.length > 0
          ? { ...r, steps: [{ type: 'standalone', id: 9999 }] }
          : r,
      );
      const failed = await importArchive(t, broken, { code: 'FLD' });
      expect(failed).toMatchObject({ status: 'failed' });
      expect(failed.error).toMatch(/step 9999/);
      // Only the import's own record is new: its row and its job.
      expect(delta(counts, await tableCounts(t))).toEqual({ project_imports: 1, jobs: 1 });
      expect(await outside(t)).toEqual(rows);
      expect(bodies(t)).toEqual(stored);

      const done = await importArchive(t, foreign('a'), { code: 'FLD' });
      expect(done).toMatchObject({ status: 'done', code: 'FLD' });
      const people = await t.db.selectFrom('users').select('email').where('email', 'like', 'a.%').execute();
      expect(people.map((p) => p.email).sort()).toEqual(
        records(foreign('a'))
          .filter((r) => r.t === 'person')
          .map((r) => r.email)
          .sort(),
      );
      const fields = await t.db
        .selectFrom('custom_fields')
        .select('id')
        .where('system_name', '=', `a_${field}`);
      expect(await fields.execute()).toHaveLength(1);
      expect(bodies(t)).toHaveLength(stored.length + filesInArchive);
      const again = records((await exportArchive(t, 'FLD')).bytes);
      expect(again.filter((r) => r.t === 'tcase')).toEqual(
        records(foreign('a')).filter((r) => r.t === 'tcase'),
      );
    });

    it('takes back an attempt that died part-way when the job is tried again, and writes the project once', async () => {
      const archive = foreign('b');
      // What one whole import of this archive adds, for comparison.
      const before = await tableCounts(t);
      const storedBefore = bodies(t).length;
      expect((await importArchive(t, foreign('c'), { code: 'CLN' })).status).toBe('done');
      const once = delta(before, await tableCounts(t));
      expect(bodies(t)).toHaveLength(storedBefore + filesInArchive);

      const counts = await tableCounts(t);
      const stored = bodies(t);
      const started = await postArchive(t, archive, { code: 'DIE' });
      expect(started.status).toBe(202);
      const [job] = await claimJobs(t.db, {
        token: 'runner-that-dies',
        nowMs: Date.now(),
        // A lease that ends at once: the next runner takes the job over, as it would from a dead process.
        leaseMs: 1,
        limit: 1,
        kinds: [PROJECT_IMPORT_JOB],
      });
      // The attempt stores the file's body, then never goes on (its process died before writing the file's row).
      const put = LocalDiskStorage.prototype.put;
      let died!: () => void;
      const dead = new Promise<void>((resolve) => (died = resolve));
      let diedAt = '';
      vi.spyOn(LocalDiskStorage.prototype, 'put').mockImplementation(async function (
        this: LocalDiskStorage,
        key,
        body,
      ) {
        await put.call(this, key, body);
        if (key.startsWith('imports/')) return;
        diedAt = key;
        died();
        await new Promise(() => {});
      });
      const handler = projectImportJob.handler(jobEnv(t.config, t.app.ctx));
      // Its lease is not renewed (no runner beats for it): the next runner takes the job over.
      const lease = new HeldLease(t.db, job, { leaseMs: 1, now: Date.now });
      void handler.run(t.db, [job], { lease: () => lease } as unknown as Parameters<typeof handler.run>[2]);
      await dead;
      vi.restoreAllMocks();
      // What the dead attempt left: the project so far, the accounts, the field, the status, the file's body.
      expect(bodies(t)).toContain(diedAt);
      expect(await t.db.selectFrom('users').select('id').where('email', 'like', 'b.%').execute()).not.toEqual(
        [],
      );

      await createJobRunner(t.db, t.config, t.app.ctx, { concurrency: 1 }).drain();
      const res = await t.get(`/import/${started.body.id}`);
      expect(res.body).toMatchObject({ status: 'done', code: 'DIE', project: { code: 'DIE' } });
      // Exactly what one whole import adds: nothing of the dead attempt stayed, nothing was written twice.
      expect(delta(counts, await tableCounts(t))).toEqual(once);
      expect(bodies(t)).not.toContain(diedAt);
      expect(bodies(t)).toHaveLength(stored.length + filesInArchive);
      const again = records((await exportArchive(t, 'DIE')).bytes);
      expect(again.filter((r) => r.t === 'file' || r.t === 'person' || r.t === 'tcase')).toEqual(
        records(archive).filter((r) => r.t === 'file' || r.t === 'person' || r.t === 'tcase'),
      );
      // The journal went with the upload.
      expect(fs.readdirSync(path.join(t.config.dataDir, 'files', 'imports'))).toEqual([]);
    });
  },
);
