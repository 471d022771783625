import { recordAudit } from '../../audit/audit.service.js';
import { Readable } from 'node:stream';
import { nowIso } from '../../../lib/time.js';
import { LeaseLost, stoppedMessage, type QueuedJob } from '../../../outbox/handler.js';
import { purgeProject, TakeBackFailed, Undo } from '../../../db/archive/purge.js';
import type { FileStorage } from '../../files/files.storage.js';
import * as repo from './archive.repository.js';
import { failureMessage, importArchive, PROJECT_IMPORT_JOB } from './archive.service.js';

/**
 * `import.project` (payload `{importId}`): checks and writes one uploaded archive as a new project, recording its
 * progress and outcome on the project_imports row, and removes the upload once it ended. What an attempt writes
 * is noted first in a journal beside the upload (`<upload key>.undo`, purge.ts): an attempt that finds the journal
 * of an earlier one (its process died, or its taking back failed) takes all of that back first. Its row's writes and
 * its journal's saves are fenced by the job's claim: an attempt another runner took over stops without writing.
 */
export const projectImportJob: QueuedJob = {
  type: 'queued',
  kind: PROJECT_IMPORT_JOB,
  handler: ({ config, parsers, files }) => {
    return {
      async run(db, [job], ctx) {
        const lease = ctx.lease(job);
        const { importId } = job.payload as { importId: number };
        const row = await db
          .selectFrom('project_imports')
          .selectAll()
          .where('id', '=', importId)
          .executeTakeFirst();
        if (!row?.file_key || row.status === 'done' || row.status === 'failed') return;
        const update = (values: Parameters<typeof repo.updateProjectImport>[2]) =>
          lease.write(async (trx) => void (await repo.updateProjectImport(trx, importId, values)));
        const storages = files.storages;
        const storage = storages.of(row.file_storage ?? 'local');
        const key = row.file_key;
        const journalKey = `${key}.undo`;
        const deleteFile = (backend: string, fileKey: string) => storages.of(backend).delete(fileKey);
        const earlier = await readText(storage, journalKey);
        await lease.check();
        if (earlier !== undefined) await Undo.fromJournal(earlier).rollback(db, row.tenant_id, deleteFile);
        // A project without a journal: an attempt of a version that kept none.
        else if (row.project_id) await purgeProject(db, row.tenant_id, row.project_id);
        await storage.delete(journalKey);
        await update({ status: 'running', project_id: null, done: 0 });
        try {
          await importArchive({
            db,
            tenantId: row.tenant_id,
            userId: row.created_by,
            code: row.code ?? undefined,
            files: { storages, publicUrl: config.publicUrl },
            parsers,
            open: async () => {
              const stream = await storage.get(key);
              if (!stream) throw new Error('the uploaded archive is gone from file storage');
              return stream;
            },
            journal: {
              save: async (text) => {
                await lease.check();
                await storage.put(journalKey, Readable.from([Buffer.from(text)]));
              },
            },
            report: ({ done, total, projectId }) =>
              update({
                ...(done !== undefined ? { done } : {}),
                ...(total !== undefined ? { total } : {}),
                ...(projectId !== undefined ? { project_id: projectId } : {}),
              }),
          });
          // Done and audited in one write: the event exists exactly when the import is recorded as done.
          await lease.write(async (trx) => {
            await repo.updateProjectImport(trx, importId, { status: 'done', finished_at: nowIso() });
            const done = await repo.findProjectImport(trx, row.tenant_id, importId);
            const ctx = {
              tenantId: row.tenant_id,
              userId: row.created_by,
              ip: '',
              userAgent: 'casebook import',
            };
            await recordAudit(trx, ctx, 'project.imported', {
              project_id: done?.projectId ?? undefined,
              project_code: done?.projectCode ?? undefined,
              import_id: importId,
              format: 'casebook',
            });
          });
        } catch (err) {
          // Taken over: the attempt holding the job now takes back what this one wrote, from the journal.
          if (err instanceof LeaseLost) throw err;
          // What was written stays noted: the job's next attempt takes it back before it writes again. On the last
          // attempt the import says it failed (and why), with the journal kept for an operator.
          if (err instanceof TakeBackFailed) {
            if (job.attempt >= job.maxAttempts)
              await update({ status: 'failed', error: failureMessage(err), finished_at: nowIso() });
            throw err;
          }
          await update({
            status: 'failed',
            project_id: null,
            error: failureMessage(err),
            finished_at: nowIso(),
          });
        }
        await lease.check();
        await storage.delete(journalKey);
        await storage.delete(key);
        await update({ file_key: null });
      },
      // Its attempts ran out with no runner answering: the import ends failed rather than running for ever.
      async exhausted(trx, job) {
        const { importId } = job.payload as { importId: number };
        await repo.failUnfinished(trx, importId, stoppedMessage(job), nowIso());
      },
    };
  },
};

/** The text of the object under `key`, undefined when there is none. */
async function readText(storage: FileStorage, key: string): Promise<string | undefined> {
  const stream = await storage.get(key);
  if (!stream) return undefined;
  const parts: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}
