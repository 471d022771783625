import fs from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Config } from '../config.js';
import { archiveLines, projectIdByCode } from '../db/archive/export.js';
import type { Db } from '../db/create-db.js';
import { AppError, badRequest, notFound } from '../errors.js';
import type { FileStorages } from '../modules/files/files.service.js';
import { failureMessage, importArchive } from '../modules/imports/archive/archive.service.js';
import * as users from '../modules/users/users.service.js';
import { createParsers } from '../lib/isolated/run.js';

/*
 * `casebook export --project CODE --out FILE` and `casebook import --file FILE [--code NEW]`: the project archive
 * (docs/archive-format.md) offline, against the configured database and file storage, with progress lines on
 * stderr (one a second at most, and the last).
 */

const progressLine = (p: object) => process.stderr.write(`${JSON.stringify({ progress: p })}\n`);

export async function exportProject(
  db: Db,
  storages: FileStorages,
  tenantId: string,
  code: string,
  out: string,
): Promise<{ file: string; bytes: number; records: number }> {
  const projectId = await projectIdByCode(db, tenantId, code);
  if (!projectId) throw notFound(`project "${code}" not found`);
  let records = 0;
  let shown = 0;
  const counted = new Transform({
    transform(text: Buffer, _enc, done) {
      for (let at = text.indexOf(10); at >= 0; at = text.indexOf(10, at + 1)) records++;
      if (Date.now() - shown > 1000) {
        shown = Date.now();
        progressLine({ records });
      }
      done(null, text);
    },
  });
  // Written beside the target and renamed at the end: a failed export leaves no half archive under its name.
  const partial = `${out}.partial`;
  try {
    await pipeline(
      Readable.from(archiveLines({ db, tenantId, projectId, readFile: (s, key) => storages.of(s).get(key) })),
      counted,
      createGzip(),
      fs.createWriteStream(partial),
    );
    fs.renameSync(partial, out);
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw err;
  }
  progressLine({ records });
  return { file: out, bytes: fs.statSync(out).size, records };
}

export async function importProject(
  db: Db,
  config: Config,
  storages: FileStorages,
  tenantId: string,
  file: string,
  code: string | undefined,
): Promise<{ project: { id: string; code: string }; records: number }> {
  if (!fs.existsSync(file)) throw notFound(`no file ${file}`);
  if (code !== undefined && !/^[A-Za-z0-9]{2,5}$/.test(code))
    throw badRequest('--code must be 2-5 letters or digits');
  const owner = (await users.listUsers(db, tenantId)).find((u) => u.role === 'owner');
  let shown = 0;
  try {
    const done = await importArchive({
      db,
      tenantId,
      userId: owner?.id ?? null,
      code,
      files: { storages, publicUrl: config.publicUrl },
      // The operator's own file, read as an upload is: the same checks and budget.
      parsers: createParsers(config),
      open: async () => fs.createReadStream(file),
      report: async (p) => {
        if (p.total !== undefined) progressLine({ checked: true, total: p.total });
        if (p.done === undefined || Date.now() - shown < 1000) return;
        shown = Date.now();
        progressLine({ done: p.done });
      },
    });
    progressLine({ done: done.total, total: done.total });
    return { project: { id: done.projectId, code: done.code }, records: done.total };
  } catch (err) {
    throw err instanceof AppError ? err : badRequest(failureMessage(err));
  }
}
