import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, type FileStorageName } from '../../src/config.js';
import { describeEachDb, type TestEnv } from '../helpers/test-app.js';
import { file, multipart, upload } from '../helpers/multipart.js';
import { startS3StandIn } from '../helpers/s3-stand-in.js';
import { freePort } from './servers.js';

/**
 * One suite every file storage backend passes (src/modules/files/files.storages.ts): local disk, chunks in
 * PostgreSQL, S3 (against s3rver, a test stand-in). Each backend runs once: local and S3 on SQLite, postgres on
 * PostgreSQL (skipped without CASEBOOK_TEST_POSTGRES_URL). The files endpoint serves no ranges, so none here.
 */

const TEN_MB = 10 * 1024 * 1024;
const content = randomBytes(TEN_MB);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-storage-'));
const s3 = await startS3StandIn();
afterAll(async () => {
  await s3.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** `bytes` in 64 KiB pieces, as a request body arrives; with `failAt`, the stream errors once past it. */
function source(bytes: Buffer, failAt?: number): Readable {
  async function* pieces() {
    for (let at = 0; at < bytes.length; at += 64 * 1024) {
      if (failAt !== undefined && at >= failAt) throw new Error('client went away');
      yield bytes.subarray(at, at + 64 * 1024);
    }
  }
  return Readable.from(pieces(), { objectMode: false });
}

async function readAll(stream: Readable | undefined): Promise<Buffer | undefined> {
  if (!stream) return undefined;
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

/** Every object the backend holds, temporary ones included: what a failed write must not add to. */
async function objectsIn(t: TestEnv, backend: FileStorageName): Promise<string[]> {
  if (backend === 'postgres') {
    const rows = await t.db.selectFrom('file_chunks').select('storage_key').distinct().execute();
    return rows.map((r) => r.storage_key);
  }
  if (backend === 's3') return s3.keys();
  const root = path.join(dataDir, 'files');
  return fs.existsSync(root)
    ? fs
        .readdirSync(root, { recursive: true, withFileTypes: true })
        .flatMap((e) => (e.isFile() ? [e.name] : []))
    : [];
}

const BACKENDS: { name: FileStorageName; db: 'sqlite' | 'postgres' }[] = [
  { name: 'local', db: 'sqlite' },
  { name: 'postgres', db: 'postgres' },
  { name: 's3', db: 'sqlite' },
];

for (const backend of BACKENDS) {
  describeEachDb(
    `file storage: ${backend.name}`,
    (t) => {
      const storage = () => t.app.ctx.files.storages.of(backend.name);

      describe('the storage interface', () => {
        it('keeps a 10 MB stream and gives it back byte for byte', async () => {
          await storage().put('tenant/ab/big', source(content));
          const back = await readAll(await storage().get('tenant/ab/big'));
          expect(back?.length).toBe(TEN_MB);
          expect(sha256(back!)).toBe(sha256(content));
        });

        it('gives back every size around its pieces whole: one byte, a megabyte, a megabyte and a byte', async () => {
          for (const size of [1, 256 * 1024, 1024 * 1024, 1024 * 1024 + 1, 1280 * 1024 + 7]) {
            const bytes = content.subarray(0, size);
            await storage().put(`tenant/ab/size-${size}`, source(bytes));
            const back = await readAll(await storage().get(`tenant/ab/size-${size}`));
            expect(back?.length).toBe(size);
            expect(sha256(back!)).toBe(sha256(bytes));
          }
        });

        it('replaces an object written again under its key, and keeps an empty one', async () => {
          await storage().put('tenant/ab/again', source(Buffer.from('first version, longer')));
          await storage().put('tenant/ab/again', source(Buffer.from('second')));
          expect((await readAll(await storage().get('tenant/ab/again')))?.toString()).toBe('second');
          await storage().put('tenant/ab/empty', source(Buffer.alloc(0)));
          expect((await readAll(await storage().get('tenant/ab/empty')))?.length).toBe(0);
        });

        it('has nothing under a missing key; deleting removes the object and deleting twice is no error', async () => {
          expect(await storage().get('tenant/ab/never')).toBeUndefined();
          await storage().put('tenant/ab/gone', source(Buffer.from('bye')));
          await storage().delete('tenant/ab/gone');
          await storage().delete('tenant/ab/gone');
          expect(await storage().get('tenant/ab/gone')).toBeUndefined();
          expect(await objectsIn(t, backend.name)).not.toContainEqual(expect.stringContaining('gone'));
        });

        it('keeps nothing of a write whose stream fails midway, small or past a multipart part', async () => {
          const before = (await objectsIn(t, backend.name)).sort();
          for (const failAt of [128 * 1024, 9 * 1024 * 1024]) {
            await expect(storage().put('tenant/ab/broken', source(content, failAt))).rejects.toThrow(
              'client went away',
            );
            expect(await storage().get('tenant/ab/broken')).toBeUndefined();
          }
          expect((await objectsIn(t, backend.name)).sort()).toEqual(before);
        });

        it('refuses a key that could leave its place', async () => {
          await expect(storage().put('../escape', source(Buffer.from('x')))).rejects.toThrow(
            'invalid storage key',
          );
        });
      });

      describe('through the files API', () => {
        it('uploads a 10 MB file and serves it back byte for byte; an unknown id is the API 404', async () => {
          const res = await upload(
            t,
            '/file',
            multipart([{ ...file(content, 'big.bin', 'application/zip'), name: 'file' }]),
          );
          expect(res.status).toBe(201);
          const row = await t.db
            .selectFrom('files')
            .selectAll()
            .where('id', '=', res.body.id)
            .executeTakeFirstOrThrow();
          expect(row).toMatchObject({ storage: backend.name, size: TEN_MB, sha256: sha256(content) });
          const got = await t.app.inject({
            method: 'GET',
            url: `/api/public/v0/file/${res.body.id}`,
            headers: { authorization: `ApiKey ${t.ownerKey}` },
          });
          expect(got.statusCode).toBe(200);
          expect(got.headers['content-length']).toBe(String(TEN_MB));
          expect(sha256(got.rawPayload)).toBe(sha256(content));
          const missing = await t.get('/file/nosuchfile');
          expect(missing.status).toBe(404);
          expect(missing.body).toEqual({ code: 'NOT_FOUND', message: 'file nosuchfile not found' });
        });

        it.runIf(backend.name === 'postgres')('removes the chunks with their file row', async () => {
          const res = await upload(
            t,
            '/file/batch',
            multipart([file(content.subarray(0, 700 * 1024), 'c.bin')]),
          );
          const id = res.body.files[0].id as string;
          const row = await t.db
            .selectFrom('files')
            .selectAll()
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          const chunks = () =>
            t.db.selectFrom('file_chunks').select('idx').where('storage_key', '=', row.storage_key).execute();
          expect((await chunks()).map((c) => c.idx)).toEqual([0, 1, 2]);
          await t.db.deleteFrom('files').where('id', '=', id).execute();
          expect(await chunks()).toEqual([]);
        });

        it('keeps no row and no object of an upload refused midway (over the size limit)', async () => {
          const rows = (await t.db.selectFrom('files').select('id').execute()).length;
          const before = (await objectsIn(t, backend.name)).sort();
          const over = Buffer.concat([content, content.subarray(0, 3 * 1024 * 1024)]);
          const res = await upload(
            t,
            '/file/batch',
            multipart([file(content, 'ok.bin'), file(over, 'over.bin')]),
          );
          expect(res.status).toBe(413);
          expect(res.body).toEqual({
            code: 'PAYLOAD_TOO_LARGE',
            message: 'file "over.bin" is larger than 12 MiB',
          });
          expect((await t.db.selectFrom('files').select('id').execute()).length).toBe(rows);
          expect((await objectsIn(t, backend.name)).sort()).toEqual(before);
        });
      });
    },
    {
      only: backend.db,
      databaseUrlInConfig: true,
      env: {
        CASEBOOK_FILE_STORAGE: backend.name,
        CASEBOOK_DATA_DIR: dataDir,
        CASEBOOK_UPLOAD_MAX_FILE_BYTES: String(12 * 1024 * 1024),
        CASEBOOK_UPLOAD_MAX_REQUEST_BYTES: String(40 * 1024 * 1024),
        ...s3.env,
      },
    },
  );
}

/** Where the S3 store of the outage suite listens once it is back; nothing listens there before. */
const awayPort = await freePort();

describeEachDb(
  'file storage: s3 away',
  (t) => {
    it('answers 503 STORAGE_UNAVAILABLE with Retry-After, not "database unavailable", and /readyz says so until the store is back', async () => {
      const up = await upload(t, '/file', multipart([{ ...file('trace', 'a.txt'), name: 'file' }]));
      expect(up.status).toBe(503);
      expect(up.headers['retry-after']).toBe('2');
      expect(up.body).toEqual({ code: 'STORAGE_UNAVAILABLE', message: expect.stringMatching(/file store/) });
      expect(await t.db.selectFrom('files').select('id').execute()).toEqual([]);

      const ready = await t.get('/readyz', { key: null });
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
      // The rest of the service is served meanwhile.
      expect((await t.get('/project')).status).toBe(200);

      const back = await startS3StandIn('casebook', awayPort);
      try {
        expect((await t.get('/readyz', { key: null })).status).toBe(200);
        const again = await upload(t, '/file', multipart([{ ...file('trace', 'a.txt'), name: 'file' }]));
        expect(again.status).toBe(201);
      } finally {
        await back.stop();
      }
    });
  },
  {
    only: 'sqlite',
    databaseUrlInConfig: true,
    env: {
      CASEBOOK_FILE_STORAGE: 's3',
      CASEBOOK_DATA_DIR: dataDir,
      ...s3.env,
      CASEBOOK_S3_ENDPOINT: `http://127.0.0.1:${awayPort}`,
    },
  },
);

describe('the CASEBOOK_FILE_STORAGE setting', () => {
  const pg = { CASEBOOK_DATABASE_URL: 'postgres://db.example/casebook' };
  it('defaults to local disk on SQLite and on PostgreSQL (existing installations keep their files)', () => {
    expect(loadConfig({}).fileStorage).toBe('local');
    expect(loadConfig(pg).fileStorage).toBe('local');
  });

  it('refuses postgres storage on SQLite, an unknown backend, and s3 without a bucket, with a message', () => {
    expect(() => loadConfig({ CASEBOOK_FILE_STORAGE: 'postgres' })).toThrow(
      /CASEBOOK_FILE_STORAGE=postgres keeps files in the database and needs a PostgreSQL one/,
    );
    expect(() => loadConfig({ CASEBOOK_FILE_STORAGE: 'nfs' })).toThrow(
      'CASEBOOK_FILE_STORAGE must be one of local, postgres, s3, got "nfs"',
    );
    expect(() => loadConfig({ ...pg, CASEBOOK_FILE_STORAGE: 's3' })).toThrow(/needs CASEBOOK_S3_BUCKET/);
    expect(() => loadConfig({ CASEBOOK_S3_BUCKET: 'b', CASEBOOK_S3_ACCESS_KEY_ID: 'k' })).toThrow(
      /set together or not at all/,
    );
    expect(() => loadConfig({ CASEBOOK_S3_BUCKET: 'b', CASEBOOK_S3_PREFIX: 'no-slash' })).toThrow(
      /must be empty or end with "\/"/,
    );
  });

  it('reads the S3 settings, path-style by default when an endpoint is given', () => {
    expect(loadConfig({ ...pg, CASEBOOK_FILE_STORAGE: 's3', ...s3.env }).s3).toEqual({
      endpoint: s3.env.CASEBOOK_S3_ENDPOINT,
      region: 'us-east-1',
      bucket: 'casebook',
      prefix: 'casebook/',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    });
    expect(loadConfig({ CASEBOOK_S3_BUCKET: 'b', CASEBOOK_S3_REGION: 'eu-west-1' }).s3?.forcePathStyle).toBe(
      false,
    );
  });
});
