import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { userWithKey } from '../../../test/helpers/factories.js';
import { file, multipart, upload } from '../../../test/helpers/multipart.js';
import { assertFilesExist, getFilesByIds, normalizeFileName, normalizeMimeType } from './files.service.js';

// Small configured limits stand in for the real 50 MiB / 100 files / 100 MiB (see the config test below).
const MAX_FILE = 1024;
const MAX_FILES = 3;
const MAX_REQUEST = 2500;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-files-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Objects in the store (temporary files excluded) and leftovers in its temp directory; chunked keys in the database. */
async function storeState(t: TestEnv) {
  if (t.config.fileStorage === 'postgres') {
    const keys = await t.db.selectFrom('file_chunks').select('storage_key').distinct().execute();
    return { objects: keys.length, tmp: 0 };
  }
  const root = path.join(dataDir, 'files');
  const walk = (dir: string): string[] =>
    fs.existsSync(dir)
      ? fs
          .readdirSync(dir, { withFileTypes: true })
          .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]))
      : [];
  const tmp = walk(path.join(root, '.tmp'));
  return { objects: walk(root).length - tmp.length, tmp: tmp.length };
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const pathOf = (url: string) => url.replace('http://casebook.test', '');

// The API behaves the same whichever backend keeps the bytes: local disk on both databases, and PostgreSQL's.
for (const storage of ['local', 'postgres'] as const) {
  describeEachDb(
    `files (${storage} storage)`,
    (t) => {
      const countRows = async () =>
        Number(
          (
            await t.db
              .selectFrom('files')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );

      /** Runs `fn`, which must fail, and checks that no row and no stored object (or temp file) was left. */
      async function expectNothingStored(fn: () => Promise<unknown>) {
        const rows = await countRows();
        const before = await storeState(t);
        await fn();
        expect(await countRows()).toBe(rows);
        expect(await storeState(t)).toEqual({ objects: before.objects, tmp: 0 });
      }

      describe('POST /file/batch', () => {
        it('answers 201 with {id, url} per part in part order and records hash, size, type, name and uploader', async () => {
          const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x10, 0x0d, 0x0a]);
          const before = (await storeState(t)).objects;
          const res = await upload(
            t,
            '/file/batch',
            multipart([
              file('hello world'),
              file(binary, 'shot.png', 'image/png'),
              file('', 'empty.log', 'text/plain'),
            ]),
          );
          expect(res.status).toBe(201);
          expect(Object.keys(res.body)).toEqual(['files']);
          expect(res.body.files).toHaveLength(3);
          for (const f of res.body.files) {
            expect(Object.keys(f).sort()).toEqual(['id', 'url']);
            expect(f.id).toMatch(/^[a-z][a-z0-9]{15}$/);
            expect(f.url).toBe(`http://casebook.test/api/public/v0/file/${f.id}`);
          }
          expect((await storeState(t)).objects).toBe(before + 3);

          const rows = await t.db
            .selectFrom('files')
            .selectAll()
            .where(
              'id',
              'in',
              res.body.files.map((f: { id: string }) => f.id),
            )
            .execute();
          const byId = new Map(rows.map((r) => [r.id, r]));
          const [a, b, c] = res.body.files.map((f: { id: string }) => byId.get(f.id)!);
          expect(a).toMatchObject({
            tenant_id: t.tenantId,
            file_name: 'a.txt',
            mime_type: 'text/plain',
            sha256: sha256('hello world'),
            uploaded_by: t.ownerId,
          });
          expect(Number(a.size)).toBe(11);
          expect(b).toMatchObject({ file_name: 'shot.png', mime_type: 'image/png', sha256: sha256(binary) });
          expect(Number(b.size)).toBe(binary.length);
          expect(Number(c.size)).toBe(0);
          expect(c.sha256).toBe(sha256(''));

          const got = await t.app.inject({
            method: 'GET',
            url: pathOf(res.body.files[1].url),
            headers: { authorization: `ApiKey ${t.ownerKey}` },
          });
          expect(got.statusCode).toBe(200);
          expect(got.rawPayload.equals(binary)).toBe(true);
          expect(got.headers['content-type']).toBe('image/png');
          expect(got.headers['content-length']).toBe(String(binary.length));
          expect(got.headers['content-disposition']).toBe(
            `inline; filename="shot.png"; filename*=UTF-8''shot.png`,
          );
          expect(got.headers['x-content-type-options']).toBe('nosniff');
          expect(got.headers.etag).toBe(`"${sha256(binary)}"`);
        });

        it('accepts a file of exactly the size limit and requests of exactly the file-count limit', async () => {
          const exact = 'x'.repeat(MAX_FILE);
          const res = await upload(t, '/file/batch', multipart([file(exact), file('1'), file('2')]));
          expect(res.status).toBe(201);
          expect(res.body.files).toHaveLength(MAX_FILES);
        });

        it('keeps a UTF-8 file name and serves it with an ASCII fallback; HTML downloads as opaque bytes', async () => {
          const res = await upload(
            t,
            '/file/batch',
            multipart([file('<script>alert(1)</script>', 'résumé \\"v2\\" ✓.html', 'text/html')]),
          );
          expect(res.status).toBe(201);
          const [info] = await getFilesByIds(t.db, t.app.ctx.files, t.tenantId, [res.body.files[0].id]);
          expect(info.fileName).toBe('résumé "v2" ✓.html');
          expect(info.mimeType).toBe('text/html');
          const got = await t.get(pathOf(res.body.files[0].url).replace('/api/public/v0', ''));
          expect(got.status).toBe(200);
          expect(got.text).toBe('<script>alert(1)</script>');
          expect(got.headers['content-type']).toBe('application/octet-stream');
          expect(got.headers['content-disposition']).toBe(
            `attachment; filename="r_sum_ _v2_ _.html"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22v2%22%20%E2%9C%93.html`,
          );
          expect(got.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
          expect(got.headers['x-content-type-options']).toBe('nosniff');
        });

        it('answers 413 with the D7 body for a file over the limit and keeps none of the request', async () => {
          await expectNothingStored(async () => {
            const res = await upload(
              t,
              '/file/batch',
              multipart([file('small'), file('y'.repeat(MAX_FILE + 1), 'big.bin')]),
            );
            expect(res.status).toBe(413);
            expect(res.body).toEqual({
              code: 'PAYLOAD_TOO_LARGE',
              message: `file "big.bin" is larger than ${MAX_FILE} bytes`,
            });
          });
        });

        it('answers 413 for more files than allowed and keeps none of them', async () => {
          await expectNothingStored(async () => {
            const res = await upload(
              t,
              '/file/batch',
              multipart([file('1'), file('2'), file('3'), file('4')]),
            );
            expect(res.status).toBe(413);
            expect(res.body).toEqual({
              code: 'PAYLOAD_TOO_LARGE',
              message: `at most ${MAX_FILES} files per request`,
            });
          });
        });

        it('answers 413 when the files of one request exceed the request limit, each being within its own', async () => {
          await expectNothingStored(async () => {
            const part = 'z'.repeat(1000);
            const res = await upload(t, '/file/batch', multipart([file(part), file(part), file(part)]));
            expect(res.status).toBe(413);
            expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
            expect(res.body.message).toBe(`the files of one request may total at most ${MAX_REQUEST} bytes`);
          });
        });

        it('answers 400 for a multipart body without any file', async () => {
          await expectNothingStored(async () => {
            const res = await upload(t, '/file/batch', multipart([]));
            expect(res.status).toBe(400);
            expect(res.body).toEqual({
              code: 'VALIDATION_FAILED',
              message: 'no files: send one or more file parts named "files"',
            });
          });
        });

        it('answers 400 naming a plain field or a wrongly named file part, and keeps the files before it', async () => {
          await expectNothingStored(async () => {
            const res = await upload(
              t,
              '/file/batch',
              multipart([file('ok'), { name: 'note', content: 'hi' }]),
            );
            expect(res.status).toBe(400);
            expect(res.body.details).toEqual([
              { path: '/note', message: expect.stringContaining('unexpected field "note"') },
            ]);
            const wrong = await upload(t, '/file/batch', multipart([{ ...file('ok'), name: 'attachment' }]));
            expect(wrong.status).toBe(400);
            expect(wrong.body.message).toMatch(/name each file part "files"/);
          });
        });

        it.each([
          ['application/json', '{"files": []}'],
          ['text/plain', 'hello'],
          ['application/octet-stream', 'raw bytes'],
        ])('answers 415 for a %s body', async (contentType, payload) => {
          await expectNothingStored(async () => {
            const res = await upload(t, '/file/batch', payload, { contentType });
            expect(res.status).toBe(415);
            expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
            expect(typeof res.body.message).toBe('string');
          });
        });

        it('answers 400 for a multipart body without a boundary', async () => {
          const res = await upload(t, '/file/batch', multipart([file('x')]), {
            contentType: 'multipart/form-data',
          });
          expect(res.status).toBe(400);
          expect(res.body.code).toBe('VALIDATION_FAILED');
          expect(res.body.message).toMatch(/multipart/i);
        });

        it('answers 403 to a viewer (uploads need test-runner) and 201 to a test-runner', async () => {
          const viewer = await userWithKey(t, 'viewer');
          const runner = await userWithKey(t, 'test-runner');
          await expectNothingStored(async () => {
            const res = await upload(t, '/file/batch', multipart([file('x')]), { key: viewer.key });
            expect(res.status).toBe(403);
            expect(res.body.code).toBe('FORBIDDEN');
          });
          const ok = await upload(t, '/file/batch', multipart([file('x')]), { key: runner.key });
          expect(ok.status).toBe(201);
          const [row] = await t.db
            .selectFrom('files')
            .select('uploaded_by')
            .where('id', '=', ok.body.files[0].id)
            .execute();
          expect(row.uploaded_by).toBe(runner.user.id);
        });
      });

      describe('over a real socket', () => {
        it("accepts what undici's FormData sends (the CLI's client) and serves the bytes back", async () => {
          const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
          const auth = { authorization: `Bearer ${t.ownerKey}` };
          const form = new FormData();
          form.append('files', new Blob(['first file']), 'report.xml');
          form.append(
            'files',
            new Blob([Buffer.alloc(MAX_FILE, 7)], { type: 'image/png' }),
            'screen shot.png',
          );
          const res = await fetch(`${base}/api/public/v0/file/batch`, {
            method: 'POST',
            body: form,
            headers: auth,
          });
          expect(res.status).toBe(201);
          const { files } = (await res.json()) as { files: { id: string; url: string }[] };
          const infos = await getFilesByIds(
            t.db,
            t.app.ctx.files,
            t.tenantId,
            files.map((f) => f.id),
          );
          expect(infos.map((f) => [f.fileName, f.mimeType, f.size])).toEqual([
            ['report.xml', 'application/octet-stream', 10],
            ['screen shot.png', 'image/png', MAX_FILE],
          ]);
          const got = await fetch(files[1].url.replace('http://casebook.test', base), { headers: auth });
          expect(got.status).toBe(200);
          expect(Buffer.from(await got.arrayBuffer()).equals(Buffer.alloc(MAX_FILE, 7))).toBe(true);

          const tooBig = new FormData();
          tooBig.append('files', new Blob([Buffer.alloc(MAX_FILE + 1)]), 'big.bin');
          await expectNothingStored(async () => {
            const res413 = await fetch(`${base}/api/public/v0/file/batch`, {
              method: 'POST',
              body: tooBig,
              headers: auth,
            });
            expect(res413.status).toBe(413);
            expect(await res413.json()).toEqual({
              code: 'PAYLOAD_TOO_LARGE',
              message: `file "big.bin" is larger than ${MAX_FILE} bytes`,
            });
          });
        });
      });

      describe('POST /file', () => {
        it('answers 201 with exactly {id, url} for one part named "file"', async () => {
          const res = await upload(
            t,
            '/file',
            multipart([{ ...file('single'), name: 'file', filename: 'one.txt' }]),
          );
          expect(res.status).toBe(201);
          expect(res.body).toEqual({
            id: expect.any(String),
            url: `http://casebook.test/api/public/v0/file/${res.body.id}`,
          });
          const got = await t.get(`/file/${res.body.id}`);
          expect(got.text).toBe('single');
          expect(got.headers['content-disposition']).toBe(
            `inline; filename="one.txt"; filename*=UTF-8''one.txt`,
          );
        });

        it('answers 400 for two parts or for a part named "files", keeping nothing', async () => {
          await expectNothingStored(async () => {
            const two = await upload(
              t,
              '/file',
              multipart([
                { ...file('a'), name: 'file' },
                { ...file('b'), name: 'file' },
              ]),
            );
            expect(two.status).toBe(400);
            expect(two.body.message).toMatch(/exactly one part/);
            const named = await upload(t, '/file', multipart([file('a')]));
            expect(named.status).toBe(400);
            expect(named.body.message).toMatch(/"file"/);
            const none = await upload(t, '/file', multipart([]));
            expect(none.status).toBe(400);
          });
        });

        it('answers 413 for a file over the limit and 415 for JSON', async () => {
          await expectNothingStored(async () => {
            const big = await upload(
              t,
              '/file',
              multipart([{ ...file('q'.repeat(MAX_FILE + 1)), name: 'file' }]),
            );
            expect(big.status).toBe(413);
            expect(big.body.code).toBe('PAYLOAD_TOO_LARGE');
            const json = await upload(t, '/file', '{}', { contentType: 'application/json' });
            expect(json.status).toBe(415);
          });
        });
      });

      describe('GET /file/:id', () => {
        it('serves the file to a viewer of the tenant, 401 without a key, 404 for an unknown id', async () => {
          const viewer = await userWithKey(t, 'viewer');
          const { body } = await upload(t, '/file/batch', multipart([file('for viewers', 'v.txt')]));
          const id = body.files[0].id;
          const got = await t.get(`/file/${id}`, { key: viewer.key });
          expect(got.status).toBe(200);
          expect(got.text).toBe('for viewers');
          expect(got.headers['content-type']).toBe('text/plain; charset=utf-8');
          expect((await t.get(`/file/${id}`, { key: null })).status).toBe(401);
          const missing = await t.get('/file/nosuchfile');
          expect(missing.status).toBe(404);
          expect(missing.body).toEqual({ code: 'NOT_FOUND', message: 'file nosuchfile not found' });
        });
      });

      describe('multipart stays scoped to the files routes', () => {
        it('answers 415 when a JSON route receives a multipart body', async () => {
          const res = await upload(t, '/project', multipart([{ name: 'code', content: 'MP' }]));
          expect(res.status).toBe(415);
          expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
        });
      });

      describe('service: getFilesByIds and assertFilesExist (used by test cases)', () => {
        it('returns {id, fileName, mimeType, size, url} in the order asked, once each, without unknown ids', async () => {
          const { body } = await upload(
            t,
            '/file/batch',
            multipart([
              file('first', 'one.txt'),
              file('{"a":1}', 'two.json', 'application/json; charset=utf-8'),
            ]),
          );
          const [one, two] = body.files.map((f: { id: string }) => f.id);
          expect(await getFilesByIds(t.db, t.app.ctx.files, t.tenantId, [two, 'unknown', one, two])).toEqual([
            {
              id: two,
              fileName: 'two.json',
              mimeType: 'application/json',
              size: 7,
              url: `http://casebook.test/api/public/v0/file/${two}`,
            },
            {
              id: one,
              fileName: 'one.txt',
              mimeType: 'text/plain',
              size: 5,
              url: `http://casebook.test/api/public/v0/file/${one}`,
            },
          ]);
          expect(await getFilesByIds(t.db, t.app.ctx.files, 'another-tenant', [one])).toEqual([]);
          expect(await getFilesByIds(t.db, t.app.ctx.files, t.tenantId, [])).toEqual([]);
          await expect(assertFilesExist(t.db, t.tenantId, [one, two])).resolves.toBeUndefined();
          await expect(assertFilesExist(t.db, t.tenantId, [one, 'gone1', 'gone2'])).rejects.toMatchObject({
            code: 'VALIDATION_FAILED',
            message: 'unknown file ids: gone1, gone2',
            details: [{ path: '/files' }],
          });
          await expect(
            assertFilesExist(t.db, 'another-tenant', [one], '/steps/0/files'),
          ).rejects.toMatchObject({
            details: [{ path: '/steps/0/files' }],
          });
        });
      });
    },
    {
      only: storage === 'postgres' ? 'postgres' : undefined,
      databaseUrlInConfig: true,
      env: {
        CASEBOOK_FILE_STORAGE: storage,
        CASEBOOK_DATA_DIR: dataDir,
        CASEBOOK_UPLOAD_MAX_FILE_BYTES: String(MAX_FILE),
        CASEBOOK_UPLOAD_MAX_FILES: String(MAX_FILES),
        CASEBOOK_UPLOAD_MAX_REQUEST_BYTES: String(MAX_REQUEST),
      },
    },
  );
}

describe('upload limits and names', () => {
  it('default to the client limits: 50 MiB a file, 100 files and 100 MiB a request', () => {
    const config = loadConfig({});
    expect(config.uploadMaxFileBytes).toBe(50 * 1024 * 1024);
    expect(config.uploadMaxFiles).toBe(100);
    expect(config.uploadMaxRequestBytes).toBe(100 * 1024 * 1024);
    expect(() => loadConfig({ CASEBOOK_UPLOAD_MAX_FILES: '0' })).toThrow(/CASEBOOK_UPLOAD_MAX_FILES/);
  });

  it('normalises declared types and file names', () => {
    expect(normalizeMimeType('Image/PNG')).toBe('image/png');
    expect(normalizeMimeType('text/csv; charset=utf-8')).toBe('text/csv');
    expect(normalizeMimeType('not a type')).toBe('application/octet-stream');
    expect(normalizeMimeType(undefined)).toBe('application/octet-stream');
    expect(normalizeFileName('C:\\Users\\me\\report.pdf')).toBe('report.pdf');
    expect(normalizeFileName('../../etc/passwd')).toBe('passwd');
    expect(normalizeFileName('a\u0000b\u001f.txt')).toBe('ab.txt');
    expect(normalizeFileName('   ')).toBe('file');
    expect([...normalizeFileName('é'.repeat(300))]).toHaveLength(255);
  });
});
