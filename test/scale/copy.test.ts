import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/create-db.js';
import { readCatalog } from '../../src/db/copy/catalog.js';
import { answers, comparedRequests, openService, populate, type Populated } from './copy-fixtures.js';
import {
  createScaleDatabase,
  killLeftovers,
  POSTGRES_SKIP_NOTE,
  runCli,
  type ScaleDatabase,
} from './servers.js';
import { POSTGRES_URL } from '../helpers/databases.js';

/**
 * `casebook copy --from URL --to URL` (docs/operations.md, "Moving to PostgreSQL"): a populated service copied
 * answers the same requests with the same bodies; keys and device sign-ins still work; new rows get fresh ids;
 * a target holding data is refused untouched; an interrupted copy resumes.
 */

async function tableCounts(url: string): Promise<Record<string, number>> {
  const db = createDb(url);
  try {
    const counts: Record<string, number> = {};
    for (const t of await readCatalog(db)) {
      const r = await sql<{ n: number }>`select count(*) as n from ${sql.table(t.name)}`.execute(db);
      counts[t.name] = Number(r.rows[0].n);
    }
    return counts;
  } finally {
    await db.destroy();
  }
}

async function maxOf(url: string, table: string, column: string): Promise<number> {
  const db = createDb(url);
  try {
    const r = await sql<{ m: number }>`select max(${sql.ref(column)}) as m from ${sql.table(table)}`.execute(
      db,
    );
    return Number(r.rows[0].m);
  } finally {
    await db.destroy();
  }
}

const copy = (from: ScaleDatabase, to: ScaleDatabase, env: Record<string, string> = {}, files = true) =>
  runCli(
    [
      'copy',
      '--from',
      from.url,
      '--to',
      to.url,
      ...(files
        ? ['--files-from', path.join(from.dataDir, 'files'), '--files-to', path.join(to.dataDir, 'files')]
        : []),
    ],
    env,
  );

const directions: Array<['sqlite' | 'postgres', 'sqlite' | 'postgres']> = [
  ['sqlite', 'postgres'],
  ['postgres', 'sqlite'],
];

if (!POSTGRES_URL) console.warn(POSTGRES_SKIP_NOTE);

for (const [from, to] of directions) {
  describe.skipIf(!POSTGRES_URL)(`casebook copy ${from} → ${to}`, () => {
    let source: ScaleDatabase;
    const targets: ScaleDatabase[] = [];
    let data: Populated;
    let before: Record<string, { status: number; text: string }>;
    let ownerKey: string;
    let sourceCounts: Record<string, number>;

    const newTarget = async () => {
      const target = await createScaleDatabase(to);
      targets.push(target);
      return target;
    };

    beforeAll(async () => {
      source = await createScaleDatabase(from);
      const service = await openService(source.url, source.dataDir);
      try {
        ownerKey = service.ownerKey;
        data = await populate(service);
        before = await answers(service, comparedRequests(data));
      } finally {
        await service.close();
      }
      sourceCounts = await tableCounts(source.url);
    }, 120_000);

    afterAll(async () => {
      killLeftovers();
      for (const db of [source, ...targets]) await db?.drop();
    }, 60_000);

    it('starts from a source in which every table of the schema holds rows', () => {
      const empty = Object.entries(sourceCounts)
        .filter(([, n]) => n === 0)
        .map(([t]) => t);
      // SQLite counts rate limits in each process's memory (src/db/rate-limit-counters.ts): no rows to copy.
      // import_created, import_folders and import_versions hold what an import wrote only while it runs
      // (imports.pipeline.ts forgets it at the end).
      // file_chunks holds file bodies only with CASEBOOK_FILE_STORAGE=postgres (these files are on local disk).
      expect(empty).toEqual(
        from === 'sqlite'
          ? ['file_chunks', 'import_created', 'import_folders', 'import_versions', 'rate_limit_counters']
          : ['file_chunks', 'import_created', 'import_folders', 'import_versions'],
      );
      expect(Object.keys(sourceCounts).length).toBeGreaterThan(40);
      const failed = Object.entries(before).filter(([, a]) => a.status !== 200);
      expect(failed).toEqual([]);
    });

    it('copies every row, id and counter: the copy answers the same requests with the same bodies', async () => {
      const target = await newTarget();
      const result = await copy(source, target);
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout);
      expect(report.ok).toBe(true);
      expect(report.resumed).toBe(false);
      // The uploaded file, and its copy in the project imported from the archive (copy-fixtures.ts).
      expect(report.files).toEqual({
        storage: 'local',
        files: 2,
        copied: 2,
        alreadyThere: 0,
        bytes: 2 * data.fileBody.length,
      });
      // file_chunks holds file bodies, which move through the target's file storage rather than as rows.
      expect(report.tables.map((t: { table: string }) => t.table).sort()).toEqual(
        Object.keys(sourceCounts)
          .filter((t) => t !== 'file_chunks')
          .sort(),
      );
      for (const t of report.tables) {
        expect(t.sourceRows, t.table).toBe(sourceCounts[t.table]);
        expect(t.targetChecksum, t.table).toBe(t.sourceChecksum);
      }
      expect(result.stderr).toMatch(/audit_events: \d+\/\d+ rows/);
      expect(await tableCounts(target.url)).toEqual(sourceCounts);

      const copied = await openService(target.url, target.dataDir, ownerKey);
      try {
        expect(await answers(copied, comparedRequests(data))).toEqual(before);
        // Keys and device sign-ins made before the copy still authenticate.
        expect((await copied.get('/users/me', { key: data.extraKey })).status).toBe(200);
        const device = await copied.get('/users/me', {
          key: null,
          headers: { authorization: `Bearer ${data.deviceToken}` },
        });
        expect(device.status, device.text).toBe(200);
        expect((await copied.get(`/file/${data.fileId}`)).text).toBe(data.fileBody);
        // New rows get ids and sequence numbers past the copied ones.
        const p = `/project/${data.fx.project.code}`;
        const made = await copied.post(`${p}/tcase`, {
          title: 'After the copy',
          type: 'standalone',
          folderId: data.fx.folderId,
          priority: 'low',
        });
        expect(made.status, made.text).toBe(201);
        expect(made.body.seq).toBe((await maxOf(source.url, 'tcases', 'seq')) + 1);
        const run = await copied.post(`${p}/run`, {
          title: 'Fresh',
          type: 'static_struct',
          queryPlans: [{ tcaseIds: [made.body.id] }],
        });
        expect(run.status, run.text).toBe(201);
        expect(run.body.id).toBe((await maxOf(source.url, 'runs', 'id')) + 1);
        const folder = await copied.post(`${p}/tcase/folder/bulk`, { folders: [{ path: ['After copy'] }] });
        expect(folder.status, folder.text).toBeLessThan(300);
      } finally {
        await copied.close();
      }
    }, 120_000);

    it('refuses a target that already holds data, and leaves it as it was', async () => {
      const target = await newTarget();
      const other = await openService(target.url, target.dataDir);
      await other.close();
      const countsBefore = await tableCounts(target.url);
      const result = await copy(source, target, {}, false);
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stderr.split('\n')[0]).error).toMatch(
        /the target already holds data \(table \w+ has rows\): casebook copy writes only into an empty database/,
      );
      expect(await tableCounts(target.url)).toEqual(countsBefore);
      const db = createDb(target.url);
      try {
        const marker = await sql`select 1 from casebook_copy_state`.execute(db).catch(() => 'absent');
        expect(marker).toBe('absent');
      } finally {
        await db.destroy();
      }
    }, 60_000);

    it('resumes an interrupted copy from its marker and ends with the same checksums', async () => {
      const target = await newTarget();
      const stopped = await copy(source, target, {
        CASEBOOK_COPY_STOP_AFTER_CHUNKS: '7',
        CASEBOOK_COPY_CHUNK_ROWS: '3',
      });
      expect(stopped.code).toBe(1);
      expect(stopped.stderr).toMatch(/copy stopped after 7 chunks/);
      const partial = await tableCounts(target.url);
      const copiedSoFar = Object.values(partial).reduce((a, b) => a + b, 0);
      expect(copiedSoFar).toBeGreaterThan(0);
      expect(copiedSoFar).toBeLessThan(Object.values(sourceCounts).reduce((a, b) => a + b, 0));

      const resumed = await copy(source, target, { CASEBOOK_COPY_CHUNK_ROWS: '3' });
      expect(resumed.code, resumed.stderr).toBe(0);
      const report = JSON.parse(resumed.stdout);
      expect(report.resumed).toBe(true);
      expect(report.tables.filter((t: { ok: boolean }) => !t.ok)).toEqual([]);
      expect(await tableCounts(target.url)).toEqual(sourceCounts);

      const again = await copy(source, target);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/already holds a finished copy/);
    }, 120_000);
  });
}
