import { Readable } from 'node:stream';
import { AppError, badRequest } from '../../errors.js';
import { newUuid } from '../../lib/ids.js';
import type { FilesContext } from '../files/files.service.js';
import type { FileStorage } from '../files/files.storage.js';

/*
 * The upload of an import (POST /project/{p}/import) and of a project archive (POST /import/project): one file,
 * kept in file storage as it arrives, and a few form fields. What each start does with them is its own.
 */

/** A part of the multipart body: a field with its value, or the file. */
export type ImportPart = { fieldName: string; value: string } | { fieldName: string; file: Readable };

const MIB = 1024 * 1024;
const describeBytes = (n: number) => (n % MIB === 0 ? `${n / MIB} MiB` : `${n} bytes`);
export const tooLarge = (max: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `the file is larger than the import limit of ${describeBytes(max)}`);

/** The bytes of `src`, failing past `max`, so that storage never keeps an oversized upload (its put is all or nothing). */
export async function* capped(src: Readable, max: number): AsyncGenerator<Buffer> {
  let seen = 0;
  for await (const chunk of src as AsyncIterable<Buffer>) {
    seen += chunk.length;
    if (seen > max) throw tooLarge(max);
    yield chunk;
  }
}

/** The uploaded file as kept: the backend it went to and its key there (undefined when the request sent none). */
export interface StoredUpload {
  backend: string;
  storage: FileStorage;
  key: string | undefined;
}

/**
 * Reads `parts`: the one file (a part named "file") goes to the current file storage under `imports/`, refused
 * past `maxBytes` before it is complete; each field goes to `onField`, which throws for one it does not take.
 * Then `use` runs with the stored file. When anything throws (a second file, a bad field, `use` itself), the
 * stored file is removed, so a refused request keeps nothing.
 */
export async function withStoredUpload<T>(
  files: FilesContext,
  parts: AsyncIterable<ImportPart>,
  maxBytes: number,
  onField: (name: string, value: string) => void,
  use: (upload: StoredUpload) => Promise<T>,
): Promise<T> {
  const backend = files.storages.current;
  const upload: StoredUpload = { backend, storage: files.storages.of(backend), key: undefined };
  try {
    for await (const part of parts) {
      if (!('file' in part)) {
        onField(part.fieldName, part.value);
        continue;
      }
      if (part.fieldName !== 'file' || upload.key !== undefined) {
        part.file.resume();
        throw badRequest('send exactly one file, in a part named "file"', `/${part.fieldName}`);
      }
      const key = `imports/${newUuid()}`;
      await upload.storage.put(key, Readable.from(capped(part.file, maxBytes)));
      upload.key = key;
    }
    return await use(upload);
  } catch (err) {
    if (upload.key !== undefined) await upload.storage.delete(upload.key);
    throw err;
  }
}
