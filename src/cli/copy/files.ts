import type { Db } from '../../db/create-db.js';
import { countFiles, fileObjects } from '../../db/copy/file-rows.js';
import type { FileStorageName } from '../../config.js';
import type { FileStorage } from '../../modules/files/files.storage.js';
import { copyObject, digestOf } from '../../modules/files/files.storages.js';
import { AppError } from '../../errors.js';

export interface FilesCopied {
  /** The target's backend: every copied row names it. */
  storage: FileStorageName;
  files: number;
  /** Bodies written by this run; the others were in the target already with the row's size and sha256. */
  copied: number;
  alreadyThere: number;
  bytes: number;
}

/** The source installation's backends, by the name a `files` row gives (`files.storage`). */
export interface SourceStorages {
  of(name: string): FileStorage;
}

/**
 * The file bodies of a copy: every object the source's `files` rows name, read from the backend each row names
 * and written to the target's backend (copyObject: streamed, read back, checked against the row's size and
 * sha256). Resumable: a body already in the target with the row's size and sha256 is not written again. Rows
 * are switched to the target backend afterwards, by `switchRows`, with the copy's done marker.
 */
export async function copyFileBodies(
  source: Db,
  from: SourceStorages,
  to: FileStorage,
  progress: (line: string) => void = () => {},
): Promise<Omit<FilesCopied, 'storage'>> {
  const total = await countFiles(source);
  const broken: string[] = [];
  const result = { files: 0, copied: 0, alreadyThere: 0, bytes: 0 };
  for await (const row of fileObjects(source)) {
    result.files++;
    const expected = { size: row.size, sha256: row.sha256 };
    const present = await digestOf(to, row.storage_key);
    if (present && present.size === expected.size && present.sha256 === expected.sha256) {
      result.alreadyThere++;
    } else {
      try {
        await copyObject(from.of(row.storage), to, row.storage_key, expected);
        result.copied++;
        result.bytes += row.size;
      } catch (err) {
        broken.push(`${row.id} (${(err as Error).message})`);
      }
    }
    if (result.files % 100 === 0 || result.files === total)
      progress(
        `files: ${result.files}/${total} (${result.copied} copied, ${result.alreadyThere} already there)`,
      );
  }
  if (broken.length > 0)
    throw new AppError(
      'CONFLICT',
      `${broken.length} file bodies could not be copied (run the copy again to resume): ${broken.slice(0, 10).join(', ')}`,
    );
  return result;
}

/** Every copied row names the backend its body is now in. */
export async function switchRows(target: Db, storage: FileStorageName): Promise<void> {
  await target.updateTable('files').set({ storage }).where('storage', '<>', storage).execute();
}
