import type { PeriodicJob } from '../../../outbox/handler.js';
import { removePendingResultUploads } from './result-files.service.js';

/**
 * Hourly in every server process (first pass at start): files uploaded for a result (`POST /file?purpose=result`)
 * that no result names 24 hours later are removed, row and bytes (extensions.md §8). Every other file is left alone.
 */
export const pendingResultUploadsJob: PeriodicJob = {
  type: 'periodic',
  name: 'pending result uploads',
  intervalMs: 3_600_000,
  async run(db, { files, log }) {
    const removed = await removePendingResultUploads(db, files, {
      onBytesError: (err, id) => log?.error({ err, id }, 'bytes of a removed pending upload not deleted'),
    });
    if (removed > 0) log?.info({ removed }, 'pending result uploads removed');
  },
};
