import type { TestEnv } from './test-app.js';

/** Multipart upload bodies for the files API (src/modules/files/files.test.ts, test/scale/file-storage.test.ts). */

export interface Part {
  name: string;
  /** Present for file parts. */
  filename?: string;
  type?: string;
  content: string | Buffer;
}

export const BOUNDARY = '----casebook-test-boundary';

/** A real multipart/form-data body, built byte by byte as a browser or undici would. */
export function multipart(parts: Part[], { close = true } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"`;
    head += '\r\n';
    if (p.type) head += `Content-Type: ${p.type}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(p.content), Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

export const file = (content: string | Buffer, filename = 'a.txt', type = 'text/plain'): Part => ({
  name: 'files',
  filename,
  type,
  content,
});

export async function upload(
  t: TestEnv,
  url: '/file' | '/file/batch' | string,
  payload: Buffer | string,
  { key = t.ownerKey, contentType = `multipart/form-data; boundary=${BOUNDARY}` } = {},
) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/public/v0${url}`,
    headers: { authorization: `ApiKey ${key}`, 'content-type': contentType },
    payload,
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}
