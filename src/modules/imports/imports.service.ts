import type { Actor } from '../../auth/actor.js';
import type { Db } from '../../db/create-db.js';
import { badRequest, notFound } from '../../errors.js';
import { parseJson } from '../../lib/json.js';
import { nowIso } from '../../lib/time.js';
import { enqueueJobs } from '../../outbox/outbox.js';
import type { FilesContext } from '../files/files.service.js';
import { getFolder } from '../folders/folders.service.js';
import { resolveProject } from '../projects/projects.service.js';
import { checkMapping, type Mapping } from './formats/csv-mapped.js';
import type { RowError } from './formats/types.js';
import { atLeast } from '../../auth/roles.js';
import { checkChoices, CustomFieldPlan } from './imports.custom-fields.js';
import { emptyReconciliation, type Reconciliation } from './imports.reconciliation.js';
import { IMPORT_JOB } from './imports.job.js';
import { FORMATS, IMPORT_FORMATS, isImportFormat } from './formats/formats.js';
import type { ImportOptions } from './imports.pipeline.js';
import * as repo from './imports.repository.js';
import type { ImportStatus } from './imports.schemas.js';
import { withStoredUpload, type ImportPart } from './imports.upload.js';

/* Starting an import (the upload kept in file storage, the row, the job) and reading where it is. */

const FIELDS = [
  'format',
  'mapping',
  'separator',
  'folderId',
  'dryRun',
  'skipInvalid',
  'customFields',
] as const;
const SEPARATORS: Record<string, string> = { ',': ',', ';': ';', '\t': '\t', tab: '\t' };

function flag(name: string, value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw badRequest(`${name} must be true or false`, `/${name}`);
}

/** The request's fields as the import's options; 400 naming the field for any bad one. */
function optionsOf(fields: Map<string, string>, actor: Actor): ImportOptions {
  const format = fields.get('format');
  if (format === undefined || !isImportFormat(format)) {
    throw badRequest(
      `format must be one of ${IMPORT_FORMATS.join(', ')}${format === undefined ? '' : `, not "${format}"`}`,
      '/format',
    );
  }
  const described = FORMATS[format];
  let mapping: Mapping | undefined;
  const rawMapping = fields.get('mapping');
  if (described.mapping) {
    if (rawMapping === undefined)
      throw badRequest(`format ${format} needs a mapping of its columns`, '/mapping');
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawMapping);
    } catch {
      throw badRequest('mapping must be a JSON object from column header to field', '/mapping');
    }
    const checked = checkMapping(parsed);
    if (typeof checked === 'string') throw badRequest(checked, '/mapping');
    mapping = checked;
  } else if (rawMapping !== undefined) {
    const mapped = IMPORT_FORMATS.filter((f) => FORMATS[f].mapping).join(' and ');
    throw badRequest(`mapping is for formats ${mapped}; ${format} has its own layout`, '/mapping');
  }
  const rawSep = fields.get('separator');
  if (described.separator === 'none' && rawSep !== undefined && rawSep !== '')
    throw badRequest(`separator is for CSV files; ${format} is ${described.kind}`, '/separator');
  const separator = rawSep === undefined || rawSep === '' ? undefined : SEPARATORS[rawSep];
  if (rawSep !== undefined && rawSep !== '' && separator === undefined)
    throw badRequest('separator must be ",", ";" or a tab ("tab")', '/separator');
  const rawFolder = fields.get('folderId');
  let folderId: number | undefined;
  if (rawFolder !== undefined && rawFolder !== '') {
    if (!/^\d{1,9}$/.test(rawFolder)) throw badRequest('folderId must be a folder id', '/folderId');
    folderId = Number(rawFolder);
  }
  const rawChoices = fields.get('customFields');
  const customFields = rawChoices === undefined || rawChoices === '' ? undefined : checkChoices(rawChoices);
  return {
    format,
    mapping,
    ...(customFields ? { customFields } : {}),
    separator,
    folderId,
    dryRun: flag('dryRun', fields.get('dryRun')),
    skipInvalid: flag('skipInvalid', fields.get('skipInvalid')),
    role: actor.role,
  };
}

/**
 * POST /project/{p}/import: the file kept in file storage (refused past `maxBytes` before it is complete, so
 * nothing is kept), the options checked, the import row and its job written together. Any refusal removes the
 * stored file.
 */
export async function startImport(
  db: Db,
  files: FilesContext,
  actor: Actor,
  projectRef: string,
  parts: AsyncIterable<ImportPart>,
  maxBytes: number,
): Promise<{ id: number }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const fields = new Map<string, string>();
  const onField = (name: string, value: string) => {
    if (!(FIELDS as readonly string[]).includes(name))
      throw badRequest(`unknown field "${name}": the fields are file, ${FIELDS.join(', ')}`, `/${name}`);
    fields.set(name, value);
  };
  return withStoredUpload(files, parts, maxBytes, onField, async ({ backend, key }) => {
    const options = optionsOf(fields, actor);
    if (key === undefined) throw badRequest('the file is missing: send it in a part named "file"', '/file');
    if (options.folderId !== undefined) await getFolder(db, actor.tenantId, project.id, options.folderId);
    if (options.customFields)
      await CustomFieldPlan.checkChoices(
        db,
        actor.tenantId,
        options.customFields,
        atLeast(actor.role, 'admin'),
      );
    const id = await db.transaction().execute(async (trx) => {
      const importId = await repo.insertImport(trx, {
        tenant_id: actor.tenantId,
        project_id: project.id,
        status: 'queued',
        format: options.format,
        options: JSON.stringify(options),
        file_key: key,
        file_storage: backend,
        run_token: null,
        created_by: actor.userId,
        created_at: nowIso(),
        finished_at: null,
      });
      await enqueueJobs(trx, [
        { tenantId: actor.tenantId, kind: IMPORT_JOB, payload: { importId }, maxAttempts: 3 },
      ]);
      return importId;
    });
    return { id };
  });
}

/** GET /project/{p}/import/{id}: where the import is, and its outcome once it ended. */
export async function getImport(db: Db, actor: Actor, projectRef: string, id: number): Promise<ImportStatus> {
  const project = await resolveProject(db, actor, projectRef);
  const row = await repo.findImport(db, actor.tenantId, id);
  if (!row || row.project_id !== project.id)
    throw notFound(`import ${id} not found in project ${project.code}`);
  const options = JSON.parse(row.options) as ImportOptions;
  return {
    id: row.id,
    format: options.format,
    dryRun: options.dryRun,
    status: row.status,
    progress: { done: row.done, total: row.total },
    created: row.created,
    updated: row.updated,
    skipped: row.skipped,
    errors: parseJson<RowError[]>(row.errors, []),
    warnings: parseJson<RowError[]>(row.warnings, []),
    reconciliation: {
      ...emptyReconciliation(),
      ...parseJson<Partial<Reconciliation>>(row.reconciliation, {}),
    },
    createdAt: row.created_at,
    ...(row.finished_at ? { finishedAt: row.finished_at } : {}),
  };
}
