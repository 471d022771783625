import type { Db } from '../../../db/create-db.js';
import type { ErrorDetail } from '../../../errors.js';
import { fileUrl, knownFileIds, type FilesContext } from '../../files/files.service.js';
import type { FileInfo } from '../../files/files.schemas.js';
import * as repo from './result-files.repository.js';

/*
 * Attachments on results (extensions.md §8, docs/api-decisions.md#attachments-on-results): a result names files of
 * its tenant, uploaded with POST /file, in order. Nothing here runs for results without `files`.
 */

export { MAX_RESULT_FILES } from '../results/results.schemas.js';

/** A file upload made for a result and never named by one is removed after this long. */
export const PENDING_RESULT_UPLOAD_MS = 24 * 3_600_000;

/** The problems with the `files` of each item (unknown ids, an id given twice), at `<item path>/files/<j>`. */
export async function checkResultFiles(
  db: Db,
  tenantId: string,
  items: { files?: string[] }[],
  pathOf: (i: number) => string,
): Promise<ErrorDetail[]> {
  const ids = [...new Set(items.flatMap((it) => it.files ?? []))];
  if (ids.length === 0) return [];
  const known = await knownFileIds(db, tenantId, ids);
  const errors: ErrorDetail[] = [];
  items.forEach((item, i) => {
    const seen = new Set<string>();
    (item.files ?? []).forEach((id, j) => {
      const at = `${pathOf(i)}/files/${j}`;
      if (!known.has(id))
        errors.push({ path: at, message: `unknown file id ${id} (upload it with POST /file)` });
      else if (seen.has(id)) errors.push({ path: at, message: `file ${id} is given more than once` });
      seen.add(id);
    });
  });
  return errors;
}

/** Links each written result to the files its item named (checked before), in their order. */
export async function insertResultFiles(
  trx: Db,
  tenantId: string,
  runId: number,
  resultIds: number[],
  files: (string[] | undefined)[],
): Promise<void> {
  const rows = files.flatMap((ids, i) =>
    (ids ?? []).map((fileId, j) => ({
      tenant_id: tenantId,
      result_id: resultIds[i],
      run_id: runId,
      position: j + 1,
      file_id: fileId,
    })),
  );
  if (rows.length > 0) await repo.insertResultFiles(trx, rows);
}

/** The files each of the results names, as answered, by result id; results without any are absent. */
export async function filesOfResults(
  db: Db,
  files: FilesContext,
  tenantId: string,
  resultIds: number[],
): Promise<Map<number, FileInfo[]>> {
  const out = new Map<number, FileInfo[]>();
  if (resultIds.length === 0) return out;
  for (const r of await repo.listResultFiles(db, tenantId, resultIds)) {
    const list = out.get(r.result_id) ?? [];
    list.push({
      id: r.id,
      fileName: r.file_name,
      mimeType: r.mime_type,
      size: Number(r.size),
      url: fileUrl(files, r.id),
    });
    out.set(r.result_id, list);
  }
  return out;
}

/** `{files}` when a result names files, else nothing: a result without them is answered as before (as `steps`). */
export const withFiles = (files: FileInfo[] | undefined): { files?: FileInfo[] } =>
  files === undefined ? {} : { files };

/**
 * One pass of the cleanup: removes uploads made for a result (`purpose=result`) older than 24 hours that no result
 * names, rows then bytes, `batchSize` at a time; files uploaded for anything else are never looked at. Answers how
 * many were removed.
 */
export async function removePendingResultUploads(
  db: Db,
  files: Pick<FilesContext, 'storages'>,
  options: { nowMs?: number; batchSize?: number; onBytesError?: (err: unknown, id: string) => void } = {},
): Promise<number> {
  const cutoff = new Date((options.nowMs ?? Date.now()) - PENDING_RESULT_UPLOAD_MS).toISOString();
  const batchSize = options.batchSize ?? 500;
  let removed = 0;
  for (;;) {
    const pending = await repo.listPendingResultUploads(db, cutoff, batchSize);
    if (pending.length === 0) return removed;
    const deleted = new Set(
      await repo.deletePendingResultUploads(
        db,
        pending.map((f) => f.id),
      ),
    );
    for (const f of pending) {
      if (!deleted.has(f.id)) continue;
      // The row is gone first: no reader can reach the bytes any more, so a failure here only leaves bytes behind.
      await files.storages
        .of(f.storage)
        .delete(f.storage_key)
        .catch((err: unknown) => options.onBytesError?.(err, f.id));
    }
    removed += deleted.size;
    if (pending.length < batchSize) return removed;
  }
}
