import { useState } from 'react';
import { Link } from '@tanstack/react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { FormError } from '../../../components/FormError';
import { EmptyState, ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { formatCount, formatCountOf, formatDateTime } from '../../../lib/format';
import { sentence } from '../../../lib/useForm';
import {
  failedJobsQuery,
  JOBS_SHOWN,
  KIND_NAMES,
  retryAllJobs,
  retryJob,
  subjectText,
  type Job,
} from './api';
import '../audit-log/audit-log.css';
import './jobs.css';

/** Failed background jobs (admin): webhook deliveries and tracker comments that gave up, with why; retry. */
export function JobsPage() {
  useDocumentTitle('Background jobs');
  return <Jobs />;
}

function Jobs() {
  const queryClient = useQueryClient();
  const jobs = useQuery(failedJobsQuery);
  const [confirming, setConfirming] = useState(false);
  const [said, setSaid] = useState<string>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.failedJobs() });
  const retryOne = useMutation({
    mutationFn: (job: Job) => retryJob(job.id),
    onSuccess: (_r, job) => setSaid(`Job ${job.id} is queued to run again.`),
    onSettled: refresh,
  });
  const retryAll = useMutation({
    mutationFn: retryAllJobs,
    onSuccess: (r) => {
      setConfirming(false);
      setSaid(`${formatCountOf(r.retried, 'failed job')} queued to run again.`);
    },
    onSettled: refresh,
  });
  const list = jobs.data ?? [];

  return (
    <div className="page jobs-page">
      <header className="page-header">
        <div>
          <h1 className="page-title">Background jobs</h1>
          <p className="page-subtitle">
            Webhook deliveries and issue-tracker comments that failed after every attempt, newest first.
          </p>
        </div>
        {list.length > 0 && (
          <Button variant="primary" onPress={() => setConfirming(true)}>
            Retry all
          </Button>
        )}
      </header>
      <p className="admin-said" role="status">
        {said}
      </p>
      {retryOne.isError && <FormError message={sentence(retryOne.error.message)} />}
      <section className="panel" aria-labelledby="failed-jobs">
        <h2 id="failed-jobs" className="panel-title">
          {jobs.isPending
            ? 'Failed jobs'
            : `Failed jobs (${formatCount(list.length)}${list.length >= JOBS_SHOWN ? '+' : ''})`}
        </h2>
        {jobs.isPending ? (
          <Loading label="Loading failed jobs…" />
        ) : jobs.isError ? (
          <ErrorState
            title="The jobs could not be loaded."
            error={jobs.error}
            onRetry={() => jobs.refetch()}
          />
        ) : list.length === 0 ? (
          <EmptyState title="No failed jobs.">
            Every delivery and comment went through or is still trying.
          </EmptyState>
        ) : (
          <ul className="jobs-list" aria-label="Failed jobs">
            {list.map((job) => (
              <li key={job.id} className="jobs-row">
                <div className="jobs-what">
                  <span className="jobs-kind">
                    {KIND_NAMES[job.kind] ?? job.kind} <span className="muted">#{job.id}</span>
                  </span>
                  <span className="muted jobs-meta">
                    <JobSubject job={job} /> · failed {job.finishedAt ? formatDateTime(job.finishedAt) : ''}{' '}
                    after {formatCountOf(job.attempts, 'attempt')}
                  </span>
                  <span className="jobs-reason">{job.lastError ?? 'No reason was recorded.'}</span>
                </div>
                <Button
                  aria-label={`Retry job ${job.id}`}
                  isPending={retryOne.isPending && retryOne.variables?.id === job.id}
                  onPress={() => {
                    setSaid(undefined);
                    retryOne.mutate(job);
                  }}
                >
                  Retry
                </Button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <ConfirmDialog
        title="Retry every failed job?"
        isOpen={confirming}
        onClose={() => setConfirming(false)}
        confirmLabel="Retry all"
        onConfirm={() => retryAll.mutate()}
        isPending={retryAll.isPending}
        error={retryAll.isError ? sentence(retryAll.error.message) : undefined}
        danger={false}
      >
        <p>
          {list.length >= JOBS_SHOWN ? `At least ${formatCount(list.length)}` : formatCount(list.length)}{' '}
          failed {list.length === 1 ? 'job runs' : 'jobs run'} again from the first attempt: webhooks are
          delivered again and tracker comments posted again.
        </p>
      </ConfirmDialog>
    </div>
  );
}

/** A delivery names its webhook (a link to its delivery log) and event; other jobs their ids. */
function JobSubject({ job }: { job: Job }) {
  const { webhookId, webhookName, eventType } = job.subject;
  if (job.kind !== 'webhook.deliver' || typeof webhookId !== 'string' || typeof webhookName !== 'string')
    return <>{subjectText(job.subject)}</>;
  return (
    <>
      {String(eventType)} to{' '}
      <Link to="/admin/webhooks/$webhookId" params={{ webhookId }}>
        {webhookName}
      </Link>
    </>
  );
}
