import path from 'node:path';
import { AppError } from '../../errors.js';
import type { FileStorageName } from '../../config.js';
import { LocalDiskStorage, type FileStorage } from '../../modules/files/files.storage.js';
import { openFileStorages, type StorageSettings } from '../../modules/files/files.storages.js';
import { copyDatabase, type CopyReport } from '../../db/copy/copy.js';
import { copyFileBodies, switchRows, type FilesCopied } from './files.js';

export interface CopyCommand {
  from: string;
  to: string;
  /** The source's local file directory (its `<data dir>/files`). */
  filesFrom: string;
  /** A local directory as the target's file storage, instead of the one the settings name. */
  filesTo?: string;
  /** The target's file storage settings (CASEBOOK_FILE_STORAGE, CASEBOOK_S3_*, the data dir), as it will run. */
  storage: StorageSettings;
  /** Read the source as one consistent snapshot while it is written to (`casebook backup`, copy.ts). */
  snapshot?: boolean;
  /** The command named in messages about the target (`casebook copy`, `casebook restore`). */
  command?: string;
  progress?: (line: string) => void;
}

const toStderr = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** A positive whole number from the environment, or undefined when the variable is not set. */
function count(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') return undefined;
  if (!/^[1-9]\d*$/.test(text))
    throw new AppError('VALIDATION_FAILED', `${name} must be a positive whole number`);
  return Number(text);
}

/**
 * `casebook copy`: the rows, then every file body into the target's file storage, then the rows switched to it.
 * CASEBOOK_COPY_STOP_AFTER_CHUNKS is a test hook that stops the copy as an interruption would
 * (test/scale/copy.test.ts).
 */
export async function runCopy(command: CopyCommand): Promise<CopyReport & { files?: FilesCopied }> {
  const progress = command.progress ?? toStderr;
  const storage: FileStorageName = command.filesTo === undefined ? command.storage.fileStorage : 'local';
  if (command.filesTo !== undefined && command.storage.fileStorage !== 'local')
    throw new AppError(
      'VALIDATION_FAILED',
      `--files-to names a local directory, but CASEBOOK_FILE_STORAGE is "${command.storage.fileStorage}": use one or the other`,
    );
  let files: FilesCopied | undefined;
  const report = await copyDatabase({
    from: command.from,
    to: command.to,
    stopAfterChunks: count('CASEBOOK_COPY_STOP_AFTER_CHUNKS'),
    chunkRows: count('CASEBOOK_COPY_CHUNK_ROWS'),
    snapshot: command.snapshot,
    command: command.command,
    progress,
    beforeDone: {
      async bodies(sourceDb, targetDb) {
        // The source's backends read through the source database, its local files under --files-from.
        const sources = openFileStorages(command.storage, sourceDb);
        const sourceLocal = new LocalDiskStorage(command.filesFrom);
        const targets = openFileStorages(command.storage, targetDb);
        try {
          const to: FileStorage =
            command.filesTo === undefined ? targets.of(storage) : new LocalDiskStorage(command.filesTo);
          progress(
            `copying file bodies into ${storage === 'local' ? path.resolve(command.filesTo ?? path.join(command.storage.dataDir, 'files')) : storage}`,
          );
          const done = await copyFileBodies(
            sourceDb,
            { of: (name) => (name === 'local' ? sourceLocal : sources.of(name)) },
            to,
            progress,
          );
          files = { storage, ...done };
        } finally {
          sources.close();
          targets.close();
        }
      },
      finish: (trx) => switchRows(trx, storage),
    },
  });
  return files ? { ...report, files } : report;
}
