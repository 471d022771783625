import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { queryKeys } from '../../../api/keys';

/** How many failed jobs the page lists (newest first); "Retry all" retries every one, listed or not. */
export const JOBS_SHOWN = 200;

export const failedJobsQuery = queryOptions({
  queryKey: queryKeys.failedJobs(),
  queryFn: async () =>
    (
      await unwrap(
        api.GET('/api/public/v0/job', { params: { query: { status: 'failed', limit: JOBS_SHOWN } } }),
      )
    ).jobs,
});

export type Job = Awaited<ReturnType<typeof failedJobsQuery.queryFn & {}>>[number];

export const retryJob = (jobId: number) =>
  unwrap(api.POST('/api/public/v0/job/{jobId}/retry', { params: { path: { jobId } } }));

export const retryAllJobs = () => unwrap(api.POST('/api/public/v0/job/retry'));

/** What each kind of job does, in words. */
export const KIND_NAMES: Record<string, string> = {
  'webhook.deliver': 'Webhook delivery',
  'webhook.event': 'Webhook event fan-out',
  'tracker.comment': 'Issue-tracker comment',
  'import.project': 'Project import',
};

const SUBJECT_WORDS: Record<string, string> = {
  deliveryId: 'delivery',
  linkId: 'link',
  eventId: 'event',
  type: '',
};

/** The job's subject (ids of what it is about) in a short line: "delivery 3f2c…", "event 12 run_created". */
export function subjectText(subject: Record<string, unknown>): string {
  const parts = Object.entries(subject)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${SUBJECT_WORDS[k] ?? k} ${String(v)}`.trim());
  return parts.join(' · ');
}
