import type { QueuedJob } from '../../outbox/handler.js';
import { extendLease } from '../../outbox/outbox.js';
import type { Db } from '../../db/create-db.js';
import { openFileStorages, type FileStorages } from '../files/files.service.js';
import { onTcasesChanged } from '../runs/runs.service.js';
import { runImport } from './imports.pipeline.js';
import * as repo from './imports.repository.js';

export const IMPORT_JOB = 'import.run';

/**
 * `import.run` (payload `{importId}`): runs one import (imports.pipeline.ts) and removes its uploaded file once it
 * ended. The file is read from the backend the upload went to (its row says which); D17's propagation is handed in
 * as the app does.
 */
export const importJob: QueuedJob = {
  type: 'queued',
  kind: IMPORT_JOB,
  handler: ({ config, parsers }) => {
    // The app's backends, opened once per database handle (the PostgreSQL backend reads through it).
    const opened = new WeakMap<Db, FileStorages>();
    const storagesOf = (db: Db) => {
      let storages = opened.get(db);
      if (!storages) opened.set(db, (storages = openFileStorages(config, db)));
      return storages;
    };
    return {
      async run(db, [job]) {
        const { importId } = job.payload as { importId: number };
        const row = await repo.findImportById(db, importId);
        if (!row?.file_key) return;
        const key = row.file_key;
        // Read from where the upload was put, whatever the storage setting says now.
        const storage = storagesOf(db).of(row.file_storage ?? 'local');
        const open = async () => {
          const stream = await storage.get(key);
          if (!stream) throw new Error('the uploaded file is gone from file storage');
          return stream;
        };
        // An import may outlast the lease (jobLeaseSeconds): it renews it as it goes, a third of the lease at most
        // apart, so no other runner takes it over while it is alive.
        const leaseMs = config.jobLeaseSeconds * 1000;
        let renewed = Date.now();
        const alive = async () => {
          if (Date.now() - renewed < leaseMs / 3) return;
          renewed = Date.now();
          await extendLease(db, job.id, job.token, renewed + leaseMs);
        };
        await runImport(db, importId, { open, parsers }, onTcasesChanged, alive);
        const after = await repo.findImportById(db, importId);
        if (after && (after.status === 'done' || after.status === 'failed')) {
          await storage.delete(key);
          await repo.updateImport(db, importId, { file_key: null });
        }
      },
    };
  },
};
