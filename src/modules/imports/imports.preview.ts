import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Actor } from '../../auth/actor.js';
import type { Db } from '../../db/create-db.js';
import { AppError, badRequest } from '../../errors.js';
import { resolveProject } from '../projects/projects.service.js';
import { UnreadableFile } from './formats/csv-read.js';
import { REQUEST_WAIT_MS, type Parsers } from '../../lib/isolated/run.js';
import { parseIsolated, previewXlsxRows } from './imports.parsing.js';
import { capped, type ImportPart } from './imports.upload.js';
import { atLeast } from '../../auth/roles.js';
import { checkMapping, type Mapping } from './formats/csv-mapped.js';
import { CustomFieldPlan, type FileField } from './imports.custom-fields.js';
import { separatorOf, type ImportFile, type ImportOptions } from './imports.pipeline.js';
import { IMPORT_FORMATS, type ImportFormat } from './formats/formats.js';

/*
 * POST /project/{p}/import/preview: the custom fields a file of any format carries (with `format`), and the header
 * and first rows of an .xlsx, read by the reader an import uses (the
 * zip guard, then exceljs, in a worker thread under the upload budget: imports.parsing.ts), so the Import page maps its columns on the rows as they will be imported. A CSV's
 * preview is read in the browser; a workbook needs exceljs, which stays on the server. The upload is kept in a
 * temporary file for the two reads of the request and removed before the answer.
 */

export const PREVIEW_ROWS = 5;

export interface ImportPreview {
  headers: string[];
  rows: string[][];
  lines: number[];
  customFields: FileField[];
}

const FIELDS = ['format', 'separator', 'mapping'];
const SEPARATORS: Record<string, string> = { ',': ',', ';': ';', '\t': '\t', tab: '\t' };

/** The preview's optional fields: which format to read the file as (default xlsx), its separator and mapping. */
function optionsOf(fields: Map<string, string>): Pick<ImportOptions, 'format' | 'separator' | 'mapping'> {
  const format = fields.get('format') || 'xlsx';
  if (!(IMPORT_FORMATS as readonly string[]).includes(format))
    throw badRequest(`format must be one of ${IMPORT_FORMATS.join(', ')}, not "${format}"`, '/format');
  const rawSep = fields.get('separator');
  const separator = rawSep ? SEPARATORS[rawSep] : undefined;
  if (rawSep && separator === undefined)
    throw badRequest('separator must be ",", ";" or a tab ("tab")', '/separator');
  let mapping: Mapping | undefined;
  const rawMapping = fields.get('mapping');
  if (rawMapping) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawMapping);
    } catch {
      throw badRequest('mapping must be a JSON object from column header to field', '/mapping');
    }
    const checked = checkMapping(parsed);
    if (typeof checked === 'string') throw badRequest(checked, '/mapping');
    mapping = checked;
  }
  return { format: format as ImportFormat, separator, mapping };
}

/**
 * The file's custom fields as the preview lists them (POST …/import/preview with a format): the whole file read in
 * the parsers' worker, nothing written; what each would become without a choice, for a caller who may create fields
 * or not.
 */
async function fileCustomFields(
  db: Db,
  tenantId: string,
  mayCreate: boolean,
  file: ImportFile,
  o: Pick<ImportOptions, 'format' | 'separator' | 'mapping'>,
): Promise<FileField[]> {
  const since = Date.now();
  const plan = await CustomFieldPlan.load(db, tenantId, undefined, mayCreate);
  const separator = await separatorOf(file.open, o as ImportOptions);
  const items = parseIsolated(
    file.parsers,
    tenantId,
    file.open,
    { ...o, separator },
    {
      check: true,
      // A person waits: after REQUEST_WAIT_MS for a parser, a 429 as for a workbook's rows.
      alive: async () => {
        if (Date.now() - since >= REQUEST_WAIT_MS)
          throw new AppError(
            'RATE_LIMITED',
            'other files are being read right now; try the preview again in a minute',
          );
      },
    },
  );
  for await (const item of items)
    if ('case' in item && item.case.customFields) plan.check(item.case.row, item.case.customFields);
  return plan.fileFields();
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
  const file = path.join(dir, 'upload');
  const fields = new Map<string, string>();
  try {
    let got = false;
    for await (const part of parts) {
      if (!('file' in part) && FIELDS.includes(part.fieldName)) {
        fields.set(part.fieldName, part.value);
        continue;
      }
      if (!('file' in part) || part.fieldName !== 'file' || got) {
        if ('file' in part) part.file.resume();
        throw badRequest(
          'send one part named "file", and optionally format, separator and mapping',
          `/${part.fieldName}`,
        );
      }
      await pipeline(Readable.from(capped(part.file, maxBytes)), fs.createWriteStream(file));
      got = true;
    }
    if (!got) throw badRequest('the file is missing: send it in a part named "file"', '/file');
    const o = optionsOf(fields);
    const open = async () => fs.createReadStream(file);
    // Any format: the custom fields it carries (for xlsx and csv only through a mapping).
    const customFields =
      o.format === 'xlsx' && !o.mapping
        ? []
        : await fileCustomFields(db, actor.tenantId, atLeast(actor.role, 'admin'), { open, parsers }, o);
    if (o.format !== 'xlsx') return { headers: [], rows: [], lines: [], customFields };
    const records = await previewXlsxRows(
      parsers,
      actor.tenantId,
      async () => fs.createReadStream(file),
      PREVIEW_ROWS + 1,
    );
    const [header, ...rows] = records;
    if (!header) throw badRequest('the first worksheet is empty: no header row', '/file');
    return {
      headers: header.cells,
      rows: rows.map((r) => r.cells),
      lines: rows.map((r) => r.line),
      customFields,
    };
  } catch (err) {
    if (err instanceof UnreadableFile) throw badRequest(err.message, '/file');
    throw err;
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
