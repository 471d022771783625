import path from 'node:path';
import type { Config } from './config.js';
import type { Db } from './db/create-db.js';
import type { FilesContext } from './modules/files/files.service.js';
import { LocalDiskStorage } from './modules/files/files.storage.js';
import { onTcasesChanged } from './modules/runs/propagation.service.js';
import { ResultGroupCommit } from './modules/runs/results.group-commit.js';
import type { TcasesChanged } from './modules/test-cases/test-cases.service.js';

/**
 * What services are handed beyond `db` and the caller: how modules that must not know each other are wired.
 * Built once where the application is put together (buildApp, and the same way by the CLI, jobs and tests that
 * call services directly), never set as module state.
 */
export interface AppContext {
  /** D17: test-case writes tell open live runs, inside their transaction (runs/propagation.service.ts). */
  tcasesChanged: TcasesChanged;
  /** Where uploads are kept and the absolute address files are served from. */
  files: FilesContext;
  /** Single results wait here for the next commit (runs/results.group-commit.ts): state of this app, not of the process. */
  resultGroupCommit: ResultGroupCommit;
}

export function createContext(config: Config, db: Db): AppContext {
  return {
    tcasesChanged: onTcasesChanged,
    resultGroupCommit: new ResultGroupCommit(db),
    files: {
      storage: new LocalDiskStorage(path.join(config.dataDir, 'files')),
      publicUrl: config.publicUrl,
    },
  };
}
