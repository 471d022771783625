import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { moveFiles } from '../../src/modules/files/files.move.js';
import type { FileStorages } from '../../src/modules/files/files.storages.js';
import { POSTGRES_URL } from '../helpers/databases.js';
import { describeEachDb, type TestEnv } from '../helpers/test-app.js';
import { file, multipart, upload } from '../helpers/multipart.js';
import { cliArgs } from '../helpers/cli-command.js';

/**
 * `casebook files move --to <backend>` through the real command line: local disk → PostgreSQL → local disk, on
 * a PostgreSQL installation (skipped without CASEBOOK_TEST_POSTGRES_URL), while the service keeps serving.
 */

// Without PostgreSQL the file has no suite: say so rather than fail as empty.
if (!POSTGRES_URL) it.skip('casebook files move needs PostgreSQL (CASEBOOK_TEST_POSTGRES_URL)', () => {});

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-move-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function cli(t: TestEnv, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...cliArgs(), ...args],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          CASEBOOK_DATABASE_URL: t.config.databaseUrl,
          CASEBOOK_DATA_DIR: dataDir,
          CASEBOOK_SECRET_KEY: 'test-secret-key-0123456789',
          CASEBOOK_LOG_LEVEL: 'silent',
        },
        timeout: 60_000,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

const localObjects = () => {
  const root = path.join(dataDir, 'files');
  return fs.existsSync(root)
    ? fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length
    : 0;
};

describeEachDb(
  'casebook files move',
  (t) => {
    const contents = [Buffer.alloc(0), Buffer.from('a small file'), Buffer.alloc(600 * 1024, 'x')];
    const ids: string[] = [];
    const storageOf = async () =>
      (await t.db.selectFrom('files').select(['id', 'storage']).orderBy('id').execute()).map(
        (r) => r.storage,
      );
    const chunkKeys = async () =>
      (await t.db.selectFrom('file_chunks').select('storage_key').distinct().execute()).length;
    /** Every file still serves its bytes through the running service, wherever they are now. */
    async function expectServed() {
      for (const [i, id] of ids.entries()) {
        const got = await t.app.inject({
          url: `/api/public/v0/file/${id}`,
          headers: { authorization: `ApiKey ${t.ownerKey}` },
        });
        expect(got.statusCode).toBe(200);
        expect(sha256(got.rawPayload)).toBe(sha256(contents[i]));
      }
    }

    it('moves every file from local disk into PostgreSQL, with progress, and serves them from there', async () => {
      const res = await upload(t, '/file/batch', multipart(contents.map((c, i) => file(c, `f${i}.bin`))));
      expect(res.status).toBe(201);
      ids.push(...res.body.files.map((f: { id: string }) => f.id));
      expect(localObjects()).toBe(3);

      const run = await cli(t, 'files', 'move', '--to', 'postgres');
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({
        to: 'postgres',
        moved: 3,
        bytes: 600 * 1024 + 12,
        alreadyThere: 0,
      });
      const last = run.stderr.trim().split('\n').at(-1)!;
      expect(JSON.parse(last)).toEqual({ progress: { done: 3, total: 3, bytes: 600 * 1024 + 12 } });
      expect(await storageOf()).toEqual(['postgres', 'postgres', 'postgres']);
      expect(localObjects()).toBe(0);
      expect(await chunkKeys()).toBe(3);
      await expectServed();
    });

    it('resumes an interrupted move back to local disk, skipping what the first run moved', async () => {
      // The first run dies on its second file: one file is on local disk, two are still in PostgreSQL.
      const real = t.app.ctx.files.storages;
      const local = real.of('local');
      let writes = 0;
      const failing: FileStorages = {
        ...real,
        of: (name) =>
          name !== 'local'
            ? real.of(name)
            : {
                ...local,
                get: (key) => local.get(key),
                delete: (key) => local.delete(key),
                put: async (key: string, stream: Readable) => {
                  if (++writes === 2) throw new Error('machine lost');
                  await local.put(key, stream);
                },
              },
      };
      await expect(moveFiles(t.db, failing, 'local')).rejects.toThrow('machine lost');
      expect((await storageOf()).sort()).toEqual(['local', 'postgres', 'postgres']);
      await expectServed();

      const run = await cli(t, 'files', 'move', '--to', 'local');
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ to: 'local', moved: 2, alreadyThere: 1 });
      expect(await storageOf()).toEqual(['local', 'local', 'local']);
      expect(await chunkKeys()).toBe(0);
      expect(localObjects()).toBe(3);
      await expectServed();
    });

    it('keeps a file where it is when its copy does not match the recorded hash', async () => {
      await t.db
        .updateTable('files')
        .set({ sha256: '0'.repeat(64) })
        .where('id', '=', ids[1])
        .execute();
      const run = await cli(t, 'files', 'move', '--to', 'postgres');
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('does not match');
      const row = await t.db
        .selectFrom('files')
        .select('storage')
        .where('id', '=', ids[1])
        .executeTakeFirstOrThrow();
      expect(row.storage).toBe('local');
      expect(localObjects()).toBeGreaterThanOrEqual(1);
      await t.db
        .updateTable('files')
        .set({ sha256: sha256(contents[1]) })
        .where('id', '=', ids[1])
        .execute();
    });

    it('refuses an unknown backend and one without its settings, moving nothing', async () => {
      const before = await storageOf();
      const unknown = await cli(t, 'files', 'move', '--to', 'nowhere');
      expect(unknown.code).toBe(1);
      expect(JSON.parse(unknown.stderr.trim().split('\n')[0])).toEqual({
        error: '--to must be one of local, postgres, s3, got "nowhere"',
      });
      const s3 = await cli(t, 'files', 'move', '--to', 's3');
      expect(s3.code).toBe(1);
      expect(JSON.parse(s3.stderr.trim().split('\n')[0]).error).toMatch(/needs CASEBOOK_S3_BUCKET/);
      expect(await storageOf()).toEqual(before);
    });
  },
  {
    only: 'postgres',
    databaseUrlInConfig: true,
    env: { CASEBOOK_DATA_DIR: dataDir, CASEBOOK_FILE_STORAGE: 'local' },
  },
);
