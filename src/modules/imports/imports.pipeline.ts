import { recordAudit } from '../audit/audit.service.js';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Actor } from '../../auth/actor.js';
import type { Role } from '../../auth/roles.js';
import type { Db } from '../../db/create-db.js';
import type { Updateable } from 'kysely';
import type { ImportsTable } from '../../db/tables/imports.js';
import { AppError } from '../../errors.js';
import { LeaseLost } from '../../outbox/handler.js';
import { nowIso } from '../../lib/time.js';
import { folderPath, upsertFolderPaths } from '../folders/folders.service.js';
import { resolveProject } from '../projects/projects.service.js';
import {
  checkImportedContent,
  checkImportedCustomFields,
  findCasesByLegacyIds,
  lockTcaseWrites,
  writeImportedCases,
  type TcasesChanged,
} from '../test-cases/test-cases.service.js';
import { guessSeparator, UnreadableFile } from './formats/csv-read.js';
import { FORMATS, type ImportFormat } from './formats/formats.js';
import type { ParsedItem, RowError } from './formats/types.js';
import type { Mapping } from './formats/csv-mapped.js';
import type { Parsers } from '../../lib/isolated/run.js';
import { atLeast } from '../../auth/roles.js';
import { CustomFieldPlan, type FieldChoices } from './imports.custom-fields.js';
import { placeFiles } from './imports.files.js';
import { Tally } from './imports.reconciliation.js';
import { parseIsolated } from './imports.parsing.js';
import { prepareFolderRow, writeFolderRows, type PreparedFolder } from './imports.folder-rows.js';
import { LegacyIds } from './imports.legacy-ids.js';
import { fieldOf, prepareCase, type PreparedCase } from './imports.prepare.js';
import { placeSharedSteps } from './imports.shared-steps.js';
import { importActor, removeCreated, takenBackWords, type ImportProject } from './imports.takeback.js';
import * as repo from './imports.repository.js';

/*
 * One import, start to end (extensions.md §7): pass 1 reads the whole file and checks every row without writing;
 * a file with a bad row stops there unless skipInvalid; a dry run stops there too, with what would have happened.
 * Pass 2 reads the file again and writes CHUNK cases per transaction (other writers of the project wait for one
 * chunk at most); a failure part-way takes back what this import wrote: the cases it created are deleted, the cases
 * it changed get their content from before it again, the filled cases it deleted come back, the folders it created
 * go when nothing else is in them. Counts are of rows: a template counts once, whatever its filled cases. The
 * file is read twice rather than held: memory stays flat whatever its size.
 */

export const CHUNK = 500;
/** Errors kept on the import (a file of bad rows would otherwise make a huge row); the count says how many more. */
const MAX_ERRORS = 1000;

export interface ImportOptions {
  format: ImportFormat;
  mapping?: Mapping;
  separator?: string;
  folderId?: number;
  dryRun: boolean;
  skipInvalid: boolean;
  /** What becomes of each custom field of the file (imports.custom-fields.ts); absent: the defaults. */
  customFields?: FieldChoices;
  /** The role of who started it: the job writes as them. */
  role: Role;
}

export type OpenFile = () => Promise<Readable>;
/** The uploaded file: how to open it, and the app's parsers that read it (AppContext.parsers). */
export interface ImportFile {
  open: OpenFile;
  parsers: Parsers;
}
/** Called as the import goes (every chunk read or written): throws when the job was taken over (LeaseLost). */
export type Alive = () => Promise<void>;

type Project = ImportProject;

/** Another attempt of the same job took the import over (this one's lease had expired). */
class Superseded extends Error {}

/** The CSV separator: given, else guessed from the header when the format says so (formats/formats.ts). */
export async function separatorOf(open: OpenFile, o: ImportOptions): Promise<string | undefined> {
  if (FORMATS[o.format].separator !== 'guess' || o.separator !== undefined) return o.separator;
  const stream = await open();
  let head = '';
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    head += chunk.toString('utf8');
    if (head.includes('\n') || head.length > 65_536) break;
  }
  stream.destroy();
  return guessSeparator(head);
}

/** The file's items, read in a worker (imports.parsing.ts); the first reading checks an .xlsx's zip first. */
function parse(
  file: ImportFile,
  project: Project,
  o: ImportOptions,
  separator: string | undefined,
  pass: { check: boolean; alive: Alive },
): AsyncGenerator<ParsedItem> {
  return parseIsolated(
    file.parsers,
    project.tenantId,
    file.open,
    { format: o.format, separator, mapping: o.mapping },
    pass,
  );
}

interface Checked {
  total: number;
  errors: RowError[];
  /** What rows held that the import cannot keep as it was (imports.files.ts). */
  warnings: RowError[];
  badRows: Set<number>;
  /** Folder rows refused: apart from the cases' rows, which a format may share with them (TestRail XML). */
  badFolderRows: Set<number>;
  wouldCreate: number;
  wouldUpdate: number;
}

/** What both passes share: the custom fields' plan and the reconciliation's counts. */
interface Plans {
  fields: CustomFieldPlan;
  tally: Tally;
}

/** Pass 1: every row checked as the API would check it, legacy ids matched; nothing written. */
async function checkFile(
  db: Db,
  project: Project,
  file: ImportFile,
  o: ImportOptions,
  separator: string | undefined,
  alive: Alive,
  { fields, tally }: Plans,
): Promise<Checked> {
  const out: Checked = {
    total: 0,
    errors: [],
    warnings: [],
    badRows: new Set(),
    badFolderRows: new Set(),
    wouldCreate: 0,
    wouldUpdate: 0,
  };
  const legacyIds = new LegacyIds();
  const cfChecks = new Map<string, Promise<{ path: string; message: string }[]>>();
  const fail = (e: RowError) => {
    out.errors.push(e);
    out.badRows.add(e.row);
  };
  let batch: PreparedCase[] = [];
  let customKept = new Map<number, number>();
  const flush = async () => {
    await alive();
    out.warnings.push(...(await placeFiles(db, project.tenantId, batch)));
    const shared = await placeSharedSteps(db, project.tenantId, project.id, batch, false);
    out.warnings.push(...shared.warnings);
    shared.errors.forEach(fail);
    const matches = await findCasesByLegacyIds(
      db,
      project.tenantId,
      project.id,
      batch.flatMap((p) => (p.legacyId === undefined ? [] : [p.legacyId])),
    );
    for (const p of batch) {
      if (out.badRows.has(p.row)) continue;
      const match = p.legacyId === undefined ? undefined : matches.get(p.legacyId);
      const isNew = match === undefined;
      const kind = p.content.template ? 'template' : 'standalone';
      if (match !== undefined && match.type !== kind) {
        // A template is not turned into a standalone case or back (the API changes no case's type either).
        fail({
          row: p.row,
          field: 'type',
          message:
            match.type === 'filled'
              ? `legacy id "${p.legacyId}" is on a filled test case, which only its template's row can change`
              : `legacy id "${p.legacyId}" is on a ${match.type} test case, but the row's Type is ${kind}`,
        });
        continue;
      }
      const key = JSON.stringify([p.content.customFields, isNew]);
      if (!cfChecks.has(key))
        cfChecks.set(
          key,
          checkImportedCustomFields(db, project.tenantId, project.id, p.content.customFields, isNew),
        );
      const details = [...checkImportedContent(p.content), ...(await cfChecks.get(key)!)];
      for (const d of details) fail({ row: p.row, field: fieldOf(d.path), message: d.message });
      if (details.length === 0) {
        if (isNew) out.wouldCreate++;
        else out.wouldUpdate++;
        tally.caseKept(p, customKept.get(p.row) ?? 0, isNew ? 'created' : 'updated');
      }
    }
    batch = [];
    customKept = new Map();
  };
  for await (const item of parse(file, project, o, separator, { check: true, alive })) {
    if ('warning' in item) out.warnings.push(item.warning);
    if ('folder' in item) {
      tally.folderInFile(item.folder.folderPath);
      const f = prepareFolderRow(item.folder, o.folderId !== undefined);
      if (Array.isArray(f)) {
        out.errors.push(...f);
        out.badFolderRows.add(item.folder.row);
      } else tally.folderKept(f.folderPath);
    }
    if ('error' in item) {
      if (!out.badRows.has(item.error.row)) out.total++;
      fail(item.error);
    }
    if (!('case' in item)) continue;
    out.total++;
    tally.caseInFile(item.case);
    const prepared = prepareCase(item.case, o.folderId !== undefined);
    if (Array.isArray(prepared)) {
      prepared.forEach(fail);
      continue;
    }
    const raw = prepared.content.customFields;
    const cf = fields.check(prepared.row, raw);
    cf.errors.forEach(fail);
    prepared.content.customFields = cf.values;
    customKept.set(prepared.row, Object.keys(raw).length - fields.skippedIn(raw));
    const renamed = legacyIds.take(prepared);
    if (renamed) out.warnings.push(renamed);
    batch.push(prepared);
    if (batch.length >= CHUNK) await flush();
  }
  await flush();
  out.errors.sort((a, b) => a.row - b.row);
  // Nothing is written (a dry run, or a bad row without skipInvalid): no field is created either.
  out.warnings.unshift(...fields.warnings(o.dryRun || (out.errors.length > 0 && !o.skipInvalid)));
  return out;
}

const keepErrors = (errors: RowError[]) =>
  errors.length <= MAX_ERRORS
    ? errors
    : [
        ...errors.slice(0, MAX_ERRORS),
        { row: 0, message: `${errors.length - MAX_ERRORS} more errors not listed` },
      ];

/** Pass 2: the valid rows written CHUNK at a time; answers the counts. Throws Superseded when taken over. */
async function writeFile(
  db: Db,
  actor: Actor,
  project: Project,
  importId: number,
  token: string,
  file: ImportFile,
  o: ImportOptions,
  separator: string | undefined,
  checked: Checked,
  tcasesChanged: TcasesChanged,
  alive: Alive,
  { fields, tally }: Plans,
): Promise<{ created: number; updated: number }> {
  tally.resetKept();
  await db.transaction().execute((trx) => fields.createFields(trx, actor));
  const base =
    o.folderId === undefined
      ? []
      : (await folderPath(db, project.tenantId, project.id, o.folderId)).map((f) => f.title);
  let done = 0;
  let created = 0;
  let updated = 0;
  let batch: PreparedCase[] = [];
  let kept: number[] = [];
  let folderRows: PreparedFolder[] = [];
  const legacyIds = new LegacyIds();
  const flush = async () => {
    await alive();
    const rows = batch.length;
    const items = batch;
    const folders = folderRows;
    const keptValues = kept;
    batch = [];
    kept = [];
    folderRows = [];
    await db.transaction().execute(async (trx) => {
      // First statement: a later attempt holding the row makes this chunk stop before it writes anything.
      if (!(await repo.updateHeld(trx, importId, token, { done: done + rows })))
        throw new Superseded('the import was taken over by another attempt');
      await lockTcaseWrites(trx, project.id);
      await placeFiles(trx, project.tenantId, items);
      await placeSharedSteps(trx, project.tenantId, project.id, items, true);
      const newFolders: number[] = [];
      await writeFolderRows(trx, project.tenantId, project.id, base, folders, newFolders);
      const paths = [...new Map(items.map((p) => [JSON.stringify(p.folderPath), p.folderPath])).values()];
      const chains = await upsertFolderPaths(
        trx,
        project.tenantId,
        project.id,
        paths.filter((p) => base.length + p.length > 0).map((p) => ({ path: [...base, ...p] })),
        { created: newFolders },
      );
      await repo.recordFolders(trx, importId, newFolders);
      tally.foldersMade(newFolders.length);
      const leaf = new Map<string, number>();
      paths
        .filter((p) => base.length + p.length > 0)
        .forEach((p, i) => leaf.set(JSON.stringify(p), chains[i][chains[i].length - 1]));
      const result = await writeImportedCases(
        trx,
        actor,
        project,
        items.map((p) => ({
          folderId: leaf.get(JSON.stringify(p.folderPath)) ?? o.folderId!,
          legacyId: p.legacyId,
          isDraft: p.isDraft,
          content: p.content,
        })),
        tcasesChanged,
        nowIso(),
        importId,
      );
      await repo.recordCreated(trx, importId, result.created);
      await repo.recordVersions(trx, importId, result.versioned);
      await repo.recordRemoved(trx, importId, result.removed);
      await repo.updateHeld(trx, importId, token, {
        created: created + result.rows.created,
        updated: updated + result.rows.updated,
      });
      created += result.rows.created;
      updated += result.rows.updated;
      items.forEach((p, i) => tally.caseKept(p, keptValues[i], result.outcomes[i]));
      folders.forEach((f) => tally.folderKept(f.folderPath));
    });
    done += rows;
  };
  for await (const item of parse(file, project, o, separator, { check: false, alive })) {
    if ('folder' in item) {
      // A refused folder row is refused again here, by the same check.
      const f = prepareFolderRow(item.folder, o.folderId !== undefined);
      if (!Array.isArray(f)) folderRows.push(f);
    }
    if (!('case' in item)) continue;
    const prepared = prepareCase(item.case, o.folderId !== undefined);
    if (Array.isArray(prepared)) continue;
    // Before the bad rows are left out: the first pass numbered them too.
    legacyIds.take(prepared);
    if (checked.badRows.has(prepared.row)) continue;
    prepared.content.customFields = fields.write(prepared.content.customFields);
    kept.push(Object.keys(prepared.content.customFields).length);
    batch.push(prepared);
    if (batch.length + folderRows.length >= CHUNK) await flush();
  }
  if (batch.length + folderRows.length > 0) await flush();
  return { created, updated };
}

/**
 * Runs the import `importId` to its end and records the outcome on its row; errors of the file or of the writes
 * end it as failed (the job is done either way). Throws only when the database cannot be reached (the job runs
 * again and takes over: what an earlier attempt created is removed first).
 */
export async function runImport(
  db: Db,
  importId: number,
  file: ImportFile,
  tcasesChanged: TcasesChanged,
  alive: Alive = async () => {},
): Promise<void> {
  const row = await repo.findImportById(db, importId);
  if (!row || row.status === 'done' || row.status === 'failed') return;
  const token = randomUUID();
  const o = JSON.parse(row.options) as ImportOptions;
  await repo.updateImport(db, importId, { status: 'running', run_token: token, done: 0 });
  const end = (values: Updateable<ImportsTable>) =>
    repo.updateHeld(db, importId, token, { ...values, finished_at: nowIso() });
  if (row.created_by === null) {
    await end({
      status: 'failed',
      errors: JSON.stringify([{ row: 0, message: 'the user who started it is gone' }]),
    });
    return;
  }
  const actor = importActor(row.tenant_id, row.created_by, o.role);
  let project: Project;
  try {
    project = {
      ...(await resolveProject(db, actor, row.project_id, { write: !o.dryRun })),
      tenantId: row.tenant_id,
    };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    await end({ status: 'failed', errors: JSON.stringify([{ row: 0, message: err.message }]) });
    return;
  }
  // An earlier attempt died part-way: start again from nothing.
  if (row.status === 'running') await removeCreated(db, actor, importId, project, tcasesChanged);

  let checked: Checked;
  let separator: string | undefined;
  const plans: Plans = {
    fields: await CustomFieldPlan.load(db, project.tenantId, o.customFields, atLeast(o.role, 'admin')),
    tally: new Tally(),
  };
  const reconciled = (c: { created: number; updated: number; skipped: number }) =>
    JSON.stringify(plans.tally.result({ total: checked.total, ...c }));
  try {
    separator = await separatorOf(file.open, o);
    checked = await checkFile(db, project, file, o, separator, alive, plans);
  } catch (err) {
    if (!(err instanceof UnreadableFile)) throw err;
    await end({ status: 'failed', errors: JSON.stringify([{ row: err.line ?? 0, message: err.message }]) });
    return;
  }
  const errors = JSON.stringify(keepErrors(checked.errors));
  const skipped = checked.badRows.size + checked.badFolderRows.size;
  await repo.updateHeld(db, importId, token, {
    total: checked.total,
    errors,
    warnings: JSON.stringify(keepErrors(checked.warnings)),
  });
  if (checked.errors.length > 0 && !o.skipInvalid) {
    plans.tally.resetKept();
    await end({
      status: 'failed',
      skipped: checked.total,
      reconciliation: reconciled({ created: 0, updated: 0, skipped: checked.total }),
    });
    return;
  }
  if (o.dryRun) {
    await end({
      status: 'done',
      done: checked.total,
      created: checked.wouldCreate,
      updated: checked.wouldUpdate,
      skipped,
      reconciliation: reconciled({ created: checked.wouldCreate, updated: checked.wouldUpdate, skipped }),
    });
    return;
  }
  try {
    const r = await writeFile(
      db,
      actor,
      project,
      importId,
      token,
      file,
      o,
      separator,
      checked,
      tcasesChanged,
      alive,
      plans,
    );
    await repo.forgetCreated(db, importId);
    // Done and audited together: the event exists exactly when the import is recorded as done.
    await db.transaction().execute(async (trx) => {
      const held = await repo.updateHeld(trx, importId, token, {
        status: 'done',
        done: checked.total,
        created: r.created,
        updated: r.updated,
        skipped,
        reconciliation: reconciled({ ...r, skipped }),
        finished_at: nowIso(),
      });
      if (held) {
        await recordAudit(trx, actor, 'project.imported', {
          project_id: project.id,
          project_code: project.code,
          import_id: importId,
          format: o.format,
          created: r.created,
          updated: r.updated,
          skipped,
        });
      }
    });
  } catch (err) {
    if (err instanceof Superseded || err instanceof LeaseLost) return;
    const removed = await removeCreated(db, actor, importId, project, tcasesChanged);
    const message = err instanceof Error ? err.message : String(err);
    await end({
      status: 'failed',
      created: 0,
      updated: 0,
      errors: JSON.stringify([
        ...keepErrors(checked.errors),
        {
          row: 0,
          message: `the import stopped part-way (${message}); ${takenBackWords(removed)}`,
        },
      ]),
    });
  }
}
