import { stoppedMessage, type QueuedJob } from '../../outbox/handler.js';
import { nowIso } from '../../lib/time.js';
import { runImport } from './imports.pipeline.js';
import { abandonImport } from './imports.takeback.js';
import { enqueueJobs } from '../../outbox/outbox.js';
import * as repo from './imports.repository.js';

export const IMPORT_JOB = 'import.run';

/**
 * `import.run` (payload `{importId}`): runs one import (imports.pipeline.ts) and removes its uploaded file once it
 * ended. With `takeBack`: the import's attempts ran out, and what they wrote is taken back (imports.takeback.ts). The file is read from the backend the upload went to (its row says which); D17's propagation is handed in
 * as the app does.
 */
export const importJob: QueuedJob = {
  type: 'queued',
  kind: IMPORT_JOB,
  handler: ({ parsers, files, tcasesChanged }) => {
    return {
      async run(db, [job], ctx) {
        const { importId, takeBack } = job.payload as { importId: number; takeBack?: boolean };
        const row = await repo.findImportById(db, importId);
        if (!row?.file_key) return;
        const key = row.file_key;
        // Read from where the upload was put, whatever the storage setting says now.
        const storage = files.storages.of(row.file_storage ?? 'local');
        if (takeBack) {
          await abandonImport(db, importId, tcasesChanged);
          await storage.delete(key);
          await repo.updateImport(db, importId, { file_key: null });
          return;
        }
        const open = async () => {
          const stream = await storage.get(key);
          if (!stream) throw new Error('the uploaded file is gone from file storage');
          return stream;
        };
        // The runner keeps the lease while the import runs; an attempt another runner took over stops at its next
        // chunk (its writes are fenced by run_token as well).
        const lease = ctx.lease(job);
        await lease.check();
        await runImport(db, importId, { open, parsers }, tcasesChanged, () => lease.check());
        await lease.check();
        const after = await repo.findImportById(db, importId);
        if (after && (after.status === 'done' || after.status === 'failed')) {
          await storage.delete(key);
          await repo.updateImport(db, importId, { file_key: null });
        }
      },
      // Its attempts ran out with no runner answering: the import ends failed rather than running for ever, a late
      // attempt still going holds no run_token to write with, and a job of its own takes back what was written.
      async exhausted(trx, job) {
        const { importId, takeBack } = job.payload as { importId: number; takeBack?: boolean };
        const row = await repo.findImportById(trx, importId);
        if (takeBack || !row || row.status === 'done' || row.status === 'failed') return;
        await enqueueJobs(trx, [
          { tenantId: job.tenantId, kind: IMPORT_JOB, payload: { importId, takeBack: true } },
        ]);
        const errors = [...(JSON.parse(row.errors) as unknown[]), { row: 0, message: stoppedMessage(job) }];
        await repo.updateImport(trx, importId, {
          status: 'failed',
          run_token: null,
          errors: JSON.stringify(errors),
          finished_at: nowIso(),
        });
      },
    };
  },
};
