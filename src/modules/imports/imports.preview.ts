import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Actor } from '../../auth/actor.js';
import type { Db } from '../../db/create-db.js';
import { badRequest } from '../../errors.js';
import { resolveProject } from '../projects/projects.service.js';
import { UnreadableFile } from './formats/csv-read.js';
import type { Parsers } from '../../lib/isolated/run.js';
import { previewXlsxRows } from './imports.parsing.js';
import { capped, type ImportPart } from './imports.upload.js';

/*
 * POST /project/{p}/import/preview: the header and first rows of an .xlsx, read by the reader an import uses (the
 * zip guard, then exceljs, in a worker thread under the upload budget: imports.parsing.ts), so the Import page maps its columns on the rows as they will be imported. A CSV's
 * preview is read in the browser; a workbook needs exceljs, which stays on the server. The upload is kept in a
 * temporary file for the two reads of the request and removed before the answer.
 */

export const PREVIEW_ROWS = 5;

export interface ImportPreview {
  headers: string[];
  rows: string[][];
  lines: number[];
}

export async function previewXlsx(
  db: Db,
  actor: Actor,
  projectRef: string,
  parts: AsyncIterable<ImportPart>,
  maxBytes: number,
  parsers: Parsers,
): Promise<ImportPreview> {
  await resolveProject(db, actor, projectRef, { write: true });
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'casebook-preview-'));
  const file = path.join(dir, 'workbook.xlsx');
  try {
    let got = false;
    for await (const part of parts) {
      if (!('file' in part) || part.fieldName !== 'file' || got) {
        if ('file' in part) part.file.resume();
        throw badRequest('send exactly one part, the file, named "file"', `/${part.fieldName}`);
      }
      await pipeline(Readable.from(capped(part.file, maxBytes)), fs.createWriteStream(file));
      got = true;
    }
    if (!got) throw badRequest('the file is missing: send it in a part named "file"', '/file');
    const records = await previewXlsxRows(
      parsers,
      actor.tenantId,
      async () => fs.createReadStream(file),
      PREVIEW_ROWS + 1,
    );
    const [header, ...rows] = records;
    if (!header) throw badRequest('the first worksheet is empty: no header row', '/file');
    return { headers: header.cells, rows: rows.map((r) => r.cells), lines: rows.map((r) => r.line) };
  } catch (err) {
    if (err instanceof UnreadableFile) throw badRequest(err.message, '/file');
    throw err;
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
