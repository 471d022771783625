import { Readable } from 'node:stream';
import type { Actor } from '../../../auth/actor.js';
import type { Db } from '../../../db/create-db.js';
import { AppError, badRequest, conflict, notFound } from '../../../errors.js';
import { nowIso } from '../../../lib/time.js';
import { LeaseLost } from '../../../outbox/handler.js';
import { enqueueJobs } from '../../../outbox/outbox.js';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION } from '../../../db/archive/format.js';
import { TakeBackFailed, Undo, type UndoJournal } from '../../../db/archive/purge.js';
import { ArchiveError, archiveRecords, type ArchiveSummary } from '../../../db/archive/read.js';
import { IsolatedError, IsolationLimit, runIsolated, type Parsers } from '../../../lib/isolated/run.js';
import { writeArchive, type ArchiveFileStore } from '../../../db/archive/write.js';
import { fileUrl, storageKey, type FilesContext } from '../../files/files.service.js';
import { withStoredUpload, type ImportPart } from '../imports.upload.js';
import * as repo from './archive.repository.js';
import type { ProjectImportStatus } from './archive.schemas.js';

/*
 * POST /import/project (extensions.md §7): the archive kept in file storage, its header read (400 for a file that
 * is no archive of a version this service reads, 409 for a code taken), the row and its job written together.
 * The job (archive.job.ts) checks the whole archive, then writes the project, and takes it all back on a failure.
 */

export const PROJECT_IMPORT_JOB = 'import.project';
const CODE = /^[A-Za-z0-9]{2,5}$/;

/** People an archive may list before its project record: more than any tenant has, far fewer than a bomb holds. */
const MAX_PEOPLE = 100_000;

/** The archive's project code and title, read from its first records (its header checked on the way). */
export async function archiveProject(src: Readable): Promise<{ code: string; title: string }> {
  let header = false;
  let people = 0;
  for await (const { record } of archiveRecords(src)) {
    if (!header) {
      // The whole check is the job's; the header and version are told here already.
      checkHeaderOnly(record);
      header = true;
      continue;
    }
    if (record.t === 'project') {
      src.destroy();
      return { code: String(record.code), title: String(record.title) };
    }
    if (record.t !== 'person' || ++people > MAX_PEOPLE) break;
  }
  throw new ArchiveError('the archive holds no project record at its start');
}

function checkHeaderOnly(record: Record<string, unknown>): void {
  if (record.t !== 'archive' || record.format !== ARCHIVE_FORMAT)
    throw new ArchiveError('not a Casebook archive: the first line is not its header');
  if (record.formatVersion !== ARCHIVE_VERSION)
    throw new ArchiveError(
      `archive format version ${String(record.formatVersion)} is not supported: this Casebook reads version ${ARCHIVE_VERSION}`,
    );
}

/** The service's file storage as the archive's writer takes it: new files go to the current backend. */
export const archiveFileStore = (files: FilesContext, tenantId: string): ArchiveFileStore => ({
  place: (id) => ({ storage: files.storages.current, key: storageKey(tenantId, id) }),
  async put(id, body) {
    await files.storages.of(files.storages.current).put(storageKey(tenantId, id), body);
  },
  delete: (storage, key) => files.storages.of(storage).delete(key),
  url: (id) => fileUrl(files, id),
});

export async function startProjectImport(
  db: Db,
  files: FilesContext,
  actor: Actor,
  parts: AsyncIterable<ImportPart>,
  maxBytes: number,
): Promise<{ id: number }> {
  let code: string | undefined;
  const onField = (name: string, value: string) => {
    if (name !== 'code')
      throw badRequest(`unknown field "${name}": the fields are file and code`, `/${name}`);
    if (!CODE.test(value)) throw badRequest('code must be 2-5 letters or digits', '/code');
    code = value;
  };
  return withStoredUpload(files, parts, maxBytes, onField, async ({ backend, storage, key }) => {
    if (key === undefined)
      throw badRequest('the archive is missing: send it in a part named "file"', '/file');
    const stream = await storage.get(key);
    if (!stream) throw new Error('the uploaded archive is gone from file storage');
    let project: { code: string };
    try {
      project = await archiveProject(stream);
    } catch (err) {
      if (err instanceof ArchiveError) throw badRequest(err.message, '/file');
      throw err;
    }
    const finalCode = code ?? project.code;
    if (await repo.codeTaken(db, actor.tenantId, finalCode))
      throw new AppError(
        'CONFLICT',
        `a project with the code ${finalCode} exists; send another in the field "code"`,
        [{ path: '/code', message: `the code ${finalCode} is taken` }],
      );
    const id = await db.transaction().execute(async (trx) => {
      const importId = await repo.insertProjectImport(trx, {
        tenant_id: actor.tenantId,
        status: 'queued',
        code: finalCode,
        file_key: key,
        file_storage: backend,
        project_id: null,
        error: null,
        created_by: actor.userId,
        created_at: nowIso(),
        finished_at: null,
      });
      await enqueueJobs(trx, [
        { tenantId: actor.tenantId, kind: PROJECT_IMPORT_JOB, payload: { importId }, maxAttempts: 2 },
      ]);
      return importId;
    });
    return { id };
  });
}

/** GET /import/{id}: where a project import is. */
export async function getProjectImport(db: Db, actor: Actor, id: number): Promise<ProjectImportStatus> {
  const row = await repo.findProjectImport(db, actor.tenantId, id);
  if (!row) throw notFound(`project import ${id} not found`);
  return {
    id: row.id,
    status: row.status,
    code: row.code ?? '',
    progress: { done: row.done, total: row.total },
    ...(row.status === 'done' && row.projectId
      ? { project: { id: row.projectId, code: row.projectCode! } }
      : {}),
    ...(row.error ? { error: row.error } : {}),
    createdAt: row.created_at,
    ...(row.finished_at ? { finishedAt: row.finished_at } : {}),
  };
}

export interface RunInput {
  db: Db;
  tenantId: string;
  userId: number | null;
  code: string | undefined;
  files: FilesContext;
  /** Opens the archive from its start (it is read twice: checked, then written). */
  open: () => Promise<Readable>;
  /** The app's parsers: the check reads the whole archive in a worker thread under the upload budget. */
  parsers: Parsers;
  /** Where the run is: total once checked, then records written. */
  report?: (p: { done?: number; total?: number; projectId?: string }) => Promise<void>;
  /** Where what the run writes is noted before it is written (the job's: a later attempt takes it back). */
  journal?: UndoJournal;
}

const CHECK_WORKER = new URL('../../../db/archive/check.worker.js', import.meta.url);

/**
 * The archive checked in a worker thread (db/archive/check.worker.ts), a slot of the tenant's held meanwhile: what
 * the worker refuses comes back as an ArchiveError, a file past the upload budget as one naming the limit. The
 * second reading, which writes, reads a file this one checked whole, within the inflate limits of read.ts.
 */
async function checkIsolated(
  parsers: Parsers,
  tenantId: string,
  open: () => Promise<Readable>,
): Promise<ArchiveSummary> {
  const slot = (await parsers.slots.acquire(tenantId))!;
  try {
    for await (const summary of runIsolated<ArchiveSummary>({
      script: CHECK_WORKER,
      task: 'archive-check',
      input: await open(),
      budget: parsers.budget,
    }))
      return summary;
    throw new Error('the archive check ended without an answer');
  } catch (err) {
    if (err instanceof IsolationLimit) throw new ArchiveError(`the archive is refused: ${err.message}`);
    if (err instanceof IsolatedError && err.errorName === 'ArchiveError') throw new ArchiveError(err.message);
    throw err;
  } finally {
    slot.release();
  }
}

/**
 * Checks the archive, then writes it as a new project; on any failure takes back what it wrote and throws
 * (an ArchiveError or a conflict: messages for the person importing).
 */
export async function importArchive(
  input: RunInput,
): Promise<{ projectId: string; code: string; total: number }> {
  const { db, tenantId } = input;
  const report = input.report ?? (async () => {});
  const summary = await checkIsolated(input.parsers, tenantId, input.open);
  await report({ total: summary.total, done: 0 });
  const code = input.code ?? summary.code;
  if (await repo.codeTaken(db, tenantId, code)) throw conflict(`a project with the code ${code} exists`);
  const undo = new Undo((projectId) => report({ projectId }), input.journal);
  try {
    const written = await writeArchive(await input.open(), {
      db,
      tenantId,
      userId: input.userId,
      code,
      files: archiveFileStore(input.files, tenantId),
      undo,
      progress: (done) => report({ done }),
    });
    return { ...written, total: summary.total };
  } catch (err) {
    // Taken over: the attempt that holds the job now takes back what this one noted; two would race.
    if (err instanceof LeaseLost) throw err;
    try {
      await undo.rollback(db, tenantId, (storage, key) => input.files.storages.of(storage).delete(key));
    } catch (undoErr) {
      throw new TakeBackFailed(err, undoErr);
    }
    throw err;
  }
}

/** A failure's message for the person importing (the archive's fault, or ours in general words). */
export const failureMessage = (err: unknown): string =>
  err instanceof ArchiveError || err instanceof AppError
    ? err.message
    : `the import failed and wrote nothing: ${(err as Error).message}`;
