import { expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../helpers/test-app.js';
import { createProject } from '../helpers/factories.js';
import { createTcase, getTcase, uploadFile } from '../helpers/tcase-factories.js';

/*
 * Issue 24: an upload is never served from the application's origin with a type a browser runs or renders as a
 * document. `<script src=/api/public/v0/file/…>` passes `script-src 'self'`, so a "JavaScript" upload served as
 * JavaScript would run as the service's own script. Only an allow-list is served inline, as declared; everything
 * else is opaque bytes to download. The API still shows the declared type as `mimeType`.
 */

/** Served inline as declared (plain text with its charset). */
const INLINE: [string, string][] = [
  ['image/png', 'image/png'],
  ['image/jpeg', 'image/jpeg'],
  ['image/gif', 'image/gif'],
  ['image/webp', 'image/webp'],
  ['image/avif', 'image/avif'],
  ['image/bmp', 'image/bmp'],
  ['video/mp4', 'video/mp4'],
  ['video/webm', 'video/webm'],
  ['audio/mpeg', 'audio/mpeg'],
  ['application/pdf', 'application/pdf'],
  ['text/plain', 'text/plain; charset=utf-8'],
];

/** Everything else: scripts, styles, documents, SVG, XML, and any type the allow-list does not name. */
const DOWNLOADED = [
  'application/javascript',
  'text/javascript',
  'application/ecmascript',
  'text/css',
  'text/html',
  'application/xhtml+xml',
  'image/svg+xml',
  'text/xml',
  'application/xml',
  'application/json',
  'text/csv',
  'application/zip',
  'application/octet-stream',
  'application/x-shockwave-flash',
  'text/vtt',
  'multipart/x-mixed-replace',
];

/** A type a browser could run, style with or open as a document of this origin. */
const ACTIVE = /javascript|ecmascript|css|html|xml|svg|json|multipart/i;

async function fetchFile(t: TestEnv, id: string, method: 'GET' | 'HEAD' = 'GET') {
  const res = await t.app.inject({
    method,
    url: `/api/public/v0/file/${id}`,
    headers: { authorization: `ApiKey ${t.ownerKey}` },
  });
  expect(res.statusCode).toBe(200);
  return res;
}

describeEachDb('uploads are never served as script, style or a document', (t) => {
  it('serves the allow-listed types inline as declared, with nosniff', async () => {
    for (const [declared, served] of INLINE) {
      const res = await fetchFile(t, await uploadFile(t, `f.${declared.split('/')[1]}`, 'bytes', declared));
      expect(res.headers['content-type'], declared).toBe(served);
      expect(res.headers['content-disposition'], declared).toMatch(/^inline; /);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('serves every other declared type as application/octet-stream to download, the API keeping the declared type', async () => {
    const p = await createProject(t);
    const ids: string[] = [];
    for (const declared of DOWNLOADED) {
      const id = await uploadFile(t, 'payload.js', 'window.__casebookXss = 1;', declared);
      ids.push(id);
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await fetchFile(t, id, method);
        expect(res.headers['content-type'], `${method} ${declared}`).toBe('application/octet-stream');
        expect(res.headers['content-type']).not.toMatch(ACTIVE);
        expect(res.headers['content-disposition'], declared).toBe(
          `attachment; filename="payload.js"; filename*=UTF-8''payload.js`,
        );
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
      }
    }
    const tcase = await createTcase(t, p, { files: ids });
    const files = (await getTcase(t, p, tcase.id)).files as { id: string; mimeType: string }[];
    expect(files.map((f) => f.mimeType)).toEqual(DOWNLOADED);
  });

  it('never serves an active type, whatever the uploader declares in whatever letter case or with parameters', async () => {
    for (const declared of [
      'Text/HTML; charset=utf-8',
      'APPLICATION/JAVASCRIPT',
      'image/svg+xml; charset=utf-8',
      'text/plain+html',
      'image/png+svg',
      'video/../../text/html',
      'not a type',
      '',
    ]) {
      const res = await fetchFile(t, await uploadFile(t, 'x.html', '<script>1</script>', declared));
      expect(res.headers['content-type'], declared).not.toMatch(ACTIVE);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});
