import { expect } from 'vitest';
import type { TestEnv } from './test-app.js';

type ProjectRef = { code: string } | string;
const codeOf = (p: ProjectRef) => (typeof p === 'string' ? p : p.code);

let counter = 0;

/** Creates (or finds) the folder path through the API and answers the leaf folder's id. */
export async function createFolder(
  t: TestEnv,
  project: ProjectRef,
  path: string[] | string,
): Promise<number> {
  const names = typeof path === 'string' ? path.split('/') : path;
  const res = await t.post(`/project/${codeOf(project)}/tcase/folder/bulk`, { folders: [{ path: names }] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const chain: number[] = res.body.ids[0];
  return chain[chain.length - 1];
}

/**
 * Creates a test case through the API. Without `folderId` it goes into the folder "Cases"; the other
 * fields default to a standalone, published, medium-priority case with a unique title.
 */
export async function createTcase(
  t: TestEnv,
  project: ProjectRef,
  overrides: Record<string, unknown> = {},
  options: { key?: string } = {},
): Promise<{ id: string; seq: number }> {
  const folderId = (overrides.folderId as number | undefined) ?? (await createFolder(t, project, ['Cases']));
  const body = {
    title: `Test case ${Date.now().toString(36)}-${counter++}`,
    type: 'standalone',
    priority: 'medium',
    ...overrides,
    folderId,
  };
  const res = await t.post(`/project/${codeOf(project)}/tcase`, body, options);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Reads a test case back through the API (every relation present). */
export async function getTcase(t: TestEnv, project: ProjectRef, ref: string | number) {
  const res = await t.get(`/project/${codeOf(project)}/tcase/${ref}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Uploads one small file through `POST /file/batch` and answers its id. */
export async function uploadFile(
  t: TestEnv,
  fileName = 'evidence.txt',
  content = 'hello',
  mimeType = 'text/plain',
): Promise<string> {
  const boundary = `----casebook${Date.now().toString(36)}`;
  const body =
    `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${fileName}"\r\n` +
    `Content-Type: ${mimeType}\r\n\r\n${content}\r\n--${boundary}--\r\n`;
  const res = await t.request('POST', '/file/batch', {
    body,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.files[0].id;
}
