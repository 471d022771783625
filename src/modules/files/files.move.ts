import { ConfigError, FILE_STORAGES, type FileStorageName } from '../../config.js';
import type { Db } from '../../db/create-db.js';
import { copyObject, type FileStorages } from './files.storages.js';

export interface MoveProgress {
  /** Files handled so far in this run, of `total` that were not yet on the target when it started. */
  done: number;
  total: number;
  bytes: number;
}

export interface MoveSummary {
  to: FileStorageName;
  /** Files moved by this run. */
  moved: number;
  bytes: number;
  /** Files that were on the target already (an earlier, interrupted run moved them). */
  alreadyThere: number;
}

const PAGE = 100;

/**
 * `casebook files move --to <backend>`: each file not yet on `to` is copied there (streamed), checked against
 * its row's size and sha256, switched (its row names the new backend, so reads go there from now on), and only
 * then removed from where it was. Resumable: a file is either still at its source (copied again) or on the
 * target (skipped). An interruption between the switch and the removal leaves that one source object behind.
 */
export async function moveFiles(
  db: Db,
  storages: FileStorages,
  to: string,
  onProgress: (p: MoveProgress) => void = () => {},
): Promise<MoveSummary> {
  if (!(FILE_STORAGES as readonly string[]).includes(to)) {
    throw new ConfigError(`--to must be one of ${FILE_STORAGES.join(', ')}, got "${to}"`);
  }
  const target = storages.of(to);
  const count = async (onTarget: boolean) =>
    Number(
      (
        await db
          .selectFrom('files')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('storage', onTarget ? '=' : '<>', to)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const alreadyThere = await count(true);
  const progress: MoveProgress = { done: 0, total: await count(false), bytes: 0 };
  onProgress({ ...progress });
  let after = '';
  for (;;) {
    const page = await db
      .selectFrom('files')
      .select(['id', 'storage', 'storage_key', 'size', 'sha256'])
      .where('storage', '<>', to)
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (page.length === 0) break;
    for (const file of page) {
      const source = storages.of(file.storage);
      await copyObject(source, target, file.storage_key, { size: Number(file.size), sha256: file.sha256 });
      // Only the backend it was read from is replaced: a concurrent move of the same file switches it once.
      const switched = await db
        .updateTable('files')
        .set({ storage: to })
        .where('id', '=', file.id)
        .where('storage', '=', file.storage)
        .executeTakeFirst();
      if (Number(switched.numUpdatedRows) === 1) await source.delete(file.storage_key);
      progress.done += 1;
      progress.bytes += Number(file.size);
      onProgress({ ...progress });
    }
    after = page[page.length - 1].id;
  }
  return { to: to as FileStorageName, moved: progress.done, bytes: progress.bytes, alreadyThere };
}
