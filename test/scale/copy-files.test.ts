import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openService, type Service } from './copy-fixtures.js';
import {
  createScaleDatabase,
  killLeftovers,
  POSTGRES_SKIP_NOTE,
  runCli,
  type ScaleDatabase,
} from './servers.js';
import { POSTGRES_URL } from '../helpers/databases.js';

/**
 * `casebook copy` moves every file body into the target's file storage (docs/operations.md, "Moving to
 * PostgreSQL"): local files into PostgreSQL's file_chunks and back, resumable, the rows switched at the end.
 */

const BIG = crypto.randomBytes(600 * 1024 + 7); // three file_chunks rows of 256 KiB, the last one short
const SMALL = Buffer.from([0, 255, 10, 13, 0x80, ...Buffer.from(' evidence ü')]);

async function upload(s: Service, name: string, body: Buffer): Promise<string> {
  const boundary = `----casebook${crypto.randomUUID()}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    body,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await s.app.inject({
    method: 'POST',
    url: '/api/public/v0/file/batch',
    headers: {
      authorization: `ApiKey ${s.ownerKey}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    },
    payload,
  });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { files: Array<{ id: string }> }).files[0].id;
}

async function download(s: Service, id: string): Promise<Buffer> {
  const res = await s.app.inject({
    method: 'GET',
    url: `/api/public/v0/file/${id}`,
    headers: { authorization: `ApiKey ${s.ownerKey}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.rawPayload;
}

interface Source {
  db: ScaleDatabase;
  ownerKey: string;
  big: string;
  small: string;
}

/** A service on `name` with CASEBOOK_FILE_STORAGE=`storage` holding BIG and SMALL. */
async function makeSource(name: 'sqlite' | 'postgres', storage: string): Promise<Source> {
  const db = await createScaleDatabase(name);
  const service = await openService(db.url, db.dataDir, undefined, { CASEBOOK_FILE_STORAGE: storage });
  try {
    return {
      db,
      ownerKey: service.ownerKey,
      big: await upload(service, 'big.bin', BIG),
      small: await upload(service, 'small.bin', SMALL),
    };
  } finally {
    await service.close();
  }
}

const copy = (
  source: ScaleDatabase,
  target: ScaleDatabase,
  env: Record<string, string>,
  extra: string[] = [],
) =>
  runCli(
    [
      'copy',
      '--from',
      source.url,
      '--to',
      target.url,
      '--files-from',
      path.join(source.dataDir, 'files'),
      ...extra,
    ],
    { CASEBOOK_DATA_DIR: target.dataDir, ...env },
  );

async function storageOf(db: ScaleDatabase): Promise<string[]> {
  const rows = await db.db.selectFrom('files').select('storage').orderBy('id').execute();
  return rows.map((r) => r.storage);
}

if (!POSTGRES_URL) console.warn(POSTGRES_SKIP_NOTE);

describe.skipIf(!POSTGRES_URL)('casebook copy moves file bodies into the target storage', () => {
  const made: ScaleDatabase[] = [];
  let fromSqlite: Source;
  let fromPostgres: Source;

  beforeAll(async () => {
    fromSqlite = await makeSource('sqlite', 'local');
    fromPostgres = await makeSource('postgres', 'postgres');
    made.push(fromSqlite.db, fromPostgres.db);
  }, 120_000);

  afterAll(async () => {
    killLeftovers();
    for (const db of made) await db.drop();
  }, 60_000);

  const newTarget = async (name: 'sqlite' | 'postgres') => {
    const target = await createScaleDatabase(name);
    made.push(target);
    return target;
  };

  it('copies local files into PostgreSQL file_chunks, resuming after a missing body, and serves them byte-identical', async () => {
    const target = await newTarget('postgres');
    const env = { CASEBOOK_FILE_STORAGE: 'postgres' };
    // One body missing from the source: the copy names it, fails, and leaves the copy unfinished and the rows unswitched.
    const row = await fromSqlite.db.db
      .selectFrom('files')
      .select('storage_key')
      .where('id', '=', fromSqlite.small)
      .executeTakeFirstOrThrow();
    const body = path.join(fromSqlite.db.dataDir, 'files', ...row.storage_key.split('/'));
    fs.renameSync(body, `${body}.aside`);
    const failed = await copy(fromSqlite.db, target, env);
    fs.renameSync(`${body}.aside`, body);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(
      `1 file bodies could not be copied (run the copy again to resume): ${fromSqlite.small} (no object under storage key ${row.storage_key}`,
    );
    expect(failed.stderr).toMatch(/files: 2\/2 \(1 copied, 0 already there\)/);
    expect(await storageOf(target)).toEqual(['local', 'local']);
    const marker = await sql<{
      phase: string;
    }>`select phase from casebook_copy_state where table_name = ''`.execute(target.db);
    expect(marker.rows[0].phase).not.toBe('done');

    const resumed = await copy(fromSqlite.db, target, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = JSON.parse(resumed.stdout);
    expect(report.ok).toBe(true);
    expect(report.resumed).toBe(true);
    expect(report.files).toEqual({
      storage: 'postgres',
      files: 2,
      copied: 1,
      alreadyThere: 1,
      bytes: SMALL.length,
    });
    expect(await storageOf(target)).toEqual(['postgres', 'postgres']);
    const chunks = await target.db
      .selectFrom('file_chunks')
      .select(['storage_key', (eb) => eb.fn.countAll<string>().as('n')])
      .groupBy('storage_key')
      .execute();
    expect(chunks.map((c) => Number(c.n)).sort()).toEqual([1, 3]);
    // Nothing was written to the target's data directory: the bodies are in the database only.
    expect(fs.existsSync(path.join(target.dataDir, 'files'))).toBe(false);

    const service = await openService(target.url, target.dataDir, fromSqlite.ownerKey, env);
    try {
      expect((await download(service, fromSqlite.big)).equals(BIG)).toBe(true);
      expect((await download(service, fromSqlite.small)).equals(SMALL)).toBe(true);
    } finally {
      await service.close();
    }
  }, 120_000);

  it('copies PostgreSQL-stored files into the local directory of a SQLite target', async () => {
    const target = await newTarget('sqlite');
    const result = await copy(fromPostgres.db, target, { CASEBOOK_FILE_STORAGE: 'local' });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.files).toEqual({
      storage: 'local',
      files: 2,
      copied: 2,
      alreadyThere: 0,
      bytes: BIG.length + SMALL.length,
    });
    expect(await storageOf(target)).toEqual(['local', 'local']);
    // The bodies are files under the target's data directory; none went into its database as rows.
    expect(await target.db.selectFrom('file_chunks').selectAll().execute()).toEqual([]);
    const keys = await target.db.selectFrom('files').select('storage_key').execute();
    for (const { storage_key } of keys)
      expect(fs.existsSync(path.join(target.dataDir, 'files', ...storage_key.split('/')))).toBe(true);
    const service = await openService(target.url, target.dataDir, fromPostgres.ownerKey);
    try {
      expect((await download(service, fromPostgres.big)).equals(BIG)).toBe(true);
      expect((await download(service, fromPostgres.small)).equals(SMALL)).toBe(true);
    } finally {
      await service.close();
    }
  }, 120_000);

  it('refuses --files-to together with a file storage that is not local, and leaves the target empty', async () => {
    const target = await newTarget('postgres');
    const result = await copy(fromSqlite.db, target, { CASEBOOK_FILE_STORAGE: 'postgres' }, [
      '--files-to',
      path.join(target.dataDir, 'files'),
    ]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr.split('\n')[0]).error).toMatch(
      /--files-to names a local directory, but CASEBOOK_FILE_STORAGE is "postgres": use one or the other/,
    );
    const tables = await sql<{
      n: number;
    }>`select count(*) as n from information_schema.tables where table_schema = 'public'`.execute(target.db);
    expect(Number(tables.rows[0].n)).toBe(0);
  }, 60_000);
});
