import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { FilesTable } from '../../db/tables/files.js';
import type { Actor } from '../../auth/actor.js';
import { AppError, badRequest, notFound } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import * as repo from './files.repository.js';

/** The default store, for work outside a request (the import job) that opens the same files as the app. */
export { LocalDiskStorage } from './files.storage.js';
export { openFileStorages, type FileStorages } from './files.storages.js';
import type { FileInfo, UploadedFile } from './files.schemas.js';
import type { FileStorages } from './files.storages.js';

/** Where bytes are kept and the absolute address files are served from: built once with the app context (context.ts). */
export interface FilesContext {
  /** New uploads go to `storages.current`; a file is read from the backend its row names. */
  storages: FileStorages;
  /** `config.publicUrl`: file URLs are absolute (docs/api-decisions.md#endpoints-beyond-the-public-api). */
  publicUrl: string;
}

export const FILE_ROUTE_PREFIX = '/api/public/v0/file/';

/** The absolute address that serves file `id` (to anyone authenticated in its tenant). */
export const fileUrl = (files: FilesContext, id: string): string =>
  `${files.publicUrl}${FILE_ROUTE_PREFIX}${id}`;

export interface UploadLimits {
  maxFileBytes: number;
  maxFiles: number;
  maxRequestBytes: number;
}

/** One part of a multipart body, as the HTTP layer hands it over. */
export interface IncomingPart {
  fieldName: string;
  /** Absent for plain (non-file) fields. */
  file?: { fileName: string; mimeType: string; stream: Readable };
}

export interface UploadOptions {
  /** The part name clients use: `files` for the batch endpoint, `file` for the single one. */
  field: 'files' | 'file';
  single: boolean;
  limits: UploadLimits;
  /** `result`: pending until a result names it (extensions.md §8); the cleanup removes it after 24 hours otherwise. */
  purpose?: 'result';
}

const tooLarge = (message: string) => new AppError('PAYLOAD_TOO_LARGE', message);

const MIB = 1024 * 1024;
const describeBytes = (n: number) => (n % MIB === 0 ? `${n / MIB} MiB` : `${n} bytes`);

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/** The type the client declared, without parameters; anything unreadable is served as opaque bytes. */
export function normalizeMimeType(declared: string | undefined): string {
  const type = (declared ?? '').split(';')[0].trim().toLowerCase();
  return MIME.test(type) && type.length <= 255 ? type : 'application/octet-stream';
}

/**
 * Types a browser shows without running anything, served inline as declared: raster images (not SVG, which
 * can hold script), video and audio (attached test recordings), PDF and plain text.
 */
const INLINE =
  /^(image\/(png|jpeg|gif|webp|avif|bmp)|video\/[a-z0-9!#$&^_.+-]+|audio\/[a-z0-9!#$&^_.+-]+|application\/pdf|text\/plain)$/;

/**
 * How `GET /file/{id}` serves a file of the declared (normalised) type: an allow-listed type inline as itself
 * (plain text with its charset), anything else as opaque bytes to download. So no upload is ever served from the
 * application's origin with a script, style, HTML, SVG or XML type, whatever its uploader declared; the
 * declared type is still what the API shows as `mimeType`.
 */
export function servedAs(mimeType: string): { contentType: string; disposition: 'inline' | 'attachment' } {
  if (!INLINE.test(mimeType)) return { contentType: 'application/octet-stream', disposition: 'attachment' };
  return {
    contentType: mimeType === 'text/plain' ? 'text/plain; charset=utf-8' : mimeType,
    disposition: 'inline',
  };
}

/** The last path segment, without control characters, at most 255 characters; `file` when nothing is left. */
export function normalizeFileName(given: string | undefined): string {
  const base = (given ?? '').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return clean === '' ? 'file' : [...clean].slice(0, 255).join('');
}

/** Objects are grouped per tenant; tenant ids that are not path-safe are hashed. */
export function storageKey(tenantId: string, id: string): string {
  const tenant = /^[A-Za-z0-9_-]{1,64}$/.test(tenantId)
    ? tenantId
    : createHash('sha256').update(tenantId).digest('hex').slice(0, 32);
  return `${tenant}/${id.slice(0, 2)}/${id}`;
}

/**
 * Stores the file parts of one upload request (test-runner or higher, D3) in part order and records
 * their sha256, size, type, name and uploader. All or nothing: a part over `maxFileBytes`, a request
 * over `maxRequestBytes` or `maxFiles` (413), a stray field or a wrongly named part (400) leave no file
 * and no row behind.
 */
export async function uploadFiles(
  db: Db,
  files: FilesContext,
  actor: Actor,
  parts: AsyncIterable<IncomingPart>,
  options: UploadOptions,
): Promise<UploadedFile[]> {
  const storageName = files.storages.current;
  const storage = files.storages.of(storageName);
  const { limits, field } = options;
  const rows: Insertable<FilesTable>[] = [];
  let requestBytes = 0;
  try {
    for await (const part of parts) {
      if (!part.file) {
        throw badRequest(
          `unexpected field "${part.fieldName}": send each file as a file part named "${field}"`,
          `/${part.fieldName}`,
        );
      }
      if (part.fieldName !== field) {
        throw badRequest(
          `unexpected file part "${part.fieldName}": name each file part "${field}"`,
          `/${part.fieldName}`,
        );
      }
      if (options.single && rows.length === 1) {
        throw badRequest('POST /file takes exactly one part named "file"; use POST /file/batch for several');
      }
      if (rows.length >= limits.maxFiles) throw tooLarge(`at most ${limits.maxFiles} files per request`);

      const id = newId();
      const key = storageKey(actor.tenantId, id);
      const hash = createHash('sha256');
      let size = 0;
      const source = part.file.stream;
      const fileName = normalizeFileName(part.file.fileName);
      // Counts and hashes while the bytes stream to storage; throwing here aborts the write (nothing kept).
      async function* metered() {
        for await (const chunk of source) {
          const buf = chunk as Buffer;
          size += buf.length;
          requestBytes += buf.length;
          if (size > limits.maxFileBytes) {
            throw tooLarge(`file "${fileName}" is larger than ${describeBytes(limits.maxFileBytes)}`);
          }
          if (requestBytes > limits.maxRequestBytes) {
            throw tooLarge(
              `the files of one request may total at most ${describeBytes(limits.maxRequestBytes)}`,
            );
          }
          hash.update(buf);
          yield buf;
        }
      }
      await storage.put(key, Readable.from(metered(), { objectMode: false }));
      rows.push({
        id,
        tenant_id: actor.tenantId,
        storage_key: key,
        storage: storageName,
        file_name: fileName,
        mime_type: normalizeMimeType(part.file.mimeType),
        size,
        sha256: hash.digest('hex'),
        uploaded_by: actor.userId,
        created_at: nowIso(),
        purpose: options.purpose ?? null,
      });
    }
    if (rows.length === 0) throw badRequest(`no files: send one or more file parts named "${field}"`);
    await repo.insertFiles(db, rows);
  } catch (err) {
    await Promise.all(rows.map((r) => storage.delete(r.storage_key).catch(() => undefined)));
    throw err;
  }
  return rows.map((r) => ({ id: r.id, url: fileUrl(files, r.id) }));
}

const toFileInfo = (files: FilesContext, row: Selectable<FilesTable>): FileInfo => ({
  id: row.id,
  fileName: row.file_name,
  mimeType: row.mime_type,
  size: Number(row.size),
  url: fileUrl(files, row.id),
});

/** The tenant's files among `ids`, in the order asked, each once; unknown ids are left out (D1: other tenants' ids are unknown). */
export async function getFilesByIds(
  db: Db,
  files: FilesContext,
  tenantId: string,
  ids: string[],
): Promise<FileInfo[]> {
  const unique = [...new Set(ids)];
  const byId = new Map((await repo.listFilesByIds(db, tenantId, unique)).map((r) => [r.id, r]));
  return unique.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toFileInfo(files, row)] : [];
  });
}

/** Which of `ids` are uploaded files of the tenant (an import keeps those of a file it reads, D1). */
export async function knownFileIds(db: Db, tenantId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  return new Set((await repo.listFilesByIds(db, tenantId, [...new Set(ids)])).map((f) => f.id));
}

/** A body that references files (e.g. a test case's `files`) must name uploaded files of the tenant: 400 at `path` naming the unknown ids (D9). */
export async function assertFilesExist(
  db: Db,
  tenantId: string,
  ids: string[],
  path = '/files',
): Promise<void> {
  const found = new Set((await repo.listFilesByIds(db, tenantId, [...new Set(ids)])).map((f) => f.id));
  const missing = [...new Set(ids)].filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw badRequest(`unknown file id${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`, path);
  }
}

/** A file's metadata and bytes for download by anyone authenticated in the tenant; 404 for an unknown id. */
export async function openFile(
  db: Db,
  files: FilesContext,
  tenantId: string,
  id: string,
): Promise<{ file: FileInfo & { sha256: string }; stream: Readable }> {
  const row = await repo.findFile(db, tenantId, id);
  if (!row) throw notFound(`file ${id} not found`);
  const stream = await files.storages.of(row.storage).get(row.storage_key);
  // The row exists but the bytes are gone: an operator problem (restored database, lost volume), not a 404.
  if (!stream) throw new Error(`file ${id}: no object under storage key ${row.storage_key}`);
  return { file: { ...toFileInfo(files, row), sha256: row.sha256 }, stream };
}
