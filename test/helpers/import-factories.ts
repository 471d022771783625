import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { createJobRunner } from '../../src/jobs/index.js';
import type { Db } from '../../src/db/create-db.js';
import { runImport } from '../../src/modules/imports/imports.pipeline.js';
import type { TestEnv } from './test-app.js';

/* Requests and checks of the import tests (src/modules/imports/). */

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/imports');
export const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name));
const BOUNDARY = '----casebook-import-boundary';

/** A multipart body: the fields first, then the file (as browsers and curl -F send them). */
export function multipart(fields: Record<string, string>, file?: Buffer, fileName = 'cases.csv'): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: text/csv\r\n\r\n`,
      ),
      file,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

export async function postImport(t: TestEnv, code: string, fields: Record<string, string>, file?: Buffer) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/public/v0/project/${code}/import`,
    headers: {
      authorization: `ApiKey ${t.ownerKey}`,
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    },
    payload: multipart(fields, file),
  });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

export const drain = (t: TestEnv) => createJobRunner(t.db, t.config, t.app.ctx, { concurrency: 1 }).drain();

/**
 * Posts the file and runs its import in this process, failing inside the `failAt`th chunk's transaction (chunks of
 * 500 rows: D17's propagation is the chunk's last step). `onPropagation(trx, call)` runs at each propagation before
 * it, the take-back's included (the calls after `failAt`). Answers the import's id.
 */
export async function importFailingAtChunk(
  t: TestEnv,
  code: string,
  file: Buffer,
  failAt: number,
  onPropagation?: (trx: Db, call: number) => Promise<void>,
): Promise<number> {
  const started = await postImport(t, code, { format: 'qasphere-csv' }, file);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const row = await t.db
    .selectFrom('imports')
    .selectAll()
    .where('id', '=', started.body.id)
    .executeTakeFirstOrThrow();
  const storage = t.app.ctx.files.storages.of(row.file_storage ?? t.app.ctx.files.storages.current);
  let calls = 0;
  await runImport(
    t.db,
    row.id,
    { open: async () => (await storage.get(row.file_key!))!, parsers: t.app.ctx.parsers },
    async (trx, ...rest) => {
      if (++calls === failAt) throw new Error('the database went away');
      await onPropagation?.(trx, calls);
      await t.app.ctx.tcasesChanged(trx, ...rest);
    },
  );
  return row.id;
}

/** Posts the file, runs the job, answers the import's final state. */
export async function importFile(
  t: TestEnv,
  code: string,
  file: Buffer,
  fields: Record<string, string> = {},
) {
  const started = await postImport(t, code, { format: 'qasphere-csv', ...fields }, file);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  await drain(t);
  const res = await t.get(`/project/${code}/import/${started.body.id}`);
  expect(res.status).toBe(200);
  return res.body;
}

export async function listCases(t: TestEnv, code: string) {
  const res = await t.get(`/project/${code}/tcase`, {
    query: { limit: 5000, include: 'steps,tags,requirements,path,precondition', sortField: 'seq' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as any[];
}

/** Every folder of the project by its path (`a > b`), with its comment (HTML). */
export async function folderComments(t: TestEnv, code: string): Promise<Record<string, string>> {
  const res = await t.get(`/project/${code}/tcase/folders`);
  expect(res.status).toBe(200);
  const all = res.body.data as { id: number; parentId: number; title: string; comment: string }[];
  const byId = new Map(all.map((f) => [f.id, f]));
  const pathOf = (f: (typeof all)[number]): string => {
    const parent = byId.get(f.parentId);
    return parent ? `${pathOf(parent)} > ${f.title}` : f.title;
  };
  return Object.fromEntries(all.map((f) => [pathOf(f), f.comment]));
}

export const pathOf = (c: any) => (c.path as { title: string }[]).map((f) => f.title).join('/');

/** A QA Sphere CSV of `n` cases with `steps` steps each, in `folders` folders. */
export function generated(n: number, steps: number, prefix = 'G'): Buffer {
  const header = ['Folder', 'Name', 'Legacy ID', 'Priority'];
  for (let s = 1; s <= steps; s++) header.push(`Step ${s}`, `Expected ${s}`);
  const lines = [header.join(',')];
  for (let i = 0; i < n; i++) {
    const row = [
      `Suite ${i % 7}/Area ${i % 3}`,
      `Case ${i}, "generated"`.replace(/"/g, '""'),
      `${prefix}-${i}`,
      'low',
    ];
    row[1] = `"${row[1]}"`;
    for (let s = 1; s <= steps; s++) row.push(`Do **${s}** of ${i}`, `Result ${s}`);
    lines.push(row.join(','));
  }
  return Buffer.from(lines.join('\r\n') + '\r\n');
}
