import { useEffect, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { isApiError } from '../../../api/client';
import { ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import {
  sharedReportQuery,
  type DashboardData,
  type MilestoneReport,
  type PlanReport,
  type RunReport,
  type SharedReport,
} from '../api';
import { DashboardView } from '../dashboard/DashboardView';
import { MilestoneReportView } from '../milestone-report/MilestoneReportView';
import { PlanReportView } from '../plan-report/PlanReportView';
import { RunReportView } from '../run-report/RunReportView';
import { formatDateTime } from '../../../lib/format';
import '../print.css';

/** Each kind of report is one line: the same view its signed-in page shows, from the link's data. */
const VIEWS: Record<SharedReport['report'], (r: SharedReport) => ReactNode> = {
  run: (r) => (
    <RunReportView
      data={r.data as RunReport}
      project={r.project}
      statuses={r.statuses}
      sinceChosen={r.params.since !== undefined}
    />
  ),
  plan: (r) => <PlanReportView data={r.data as PlanReport} statuses={r.statuses} titled />,
  milestone: (r) => <MilestoneReportView data={r.data as MilestoneReport} statuses={r.statuses} titled />,
  dashboard: (r) => (
    <>
      <h1 className="page-title">{r.project.title}: where quality stands</h1>
      <DashboardView
        code={r.project.code}
        data={r.data as DashboardData}
        statuses={r.statuses}
        linked={false}
      />
    </>
  ),
};

/** Search engines are asked not to index the page while it is shown (the API's answer says so too). */
function useNoIndex() {
  useEffect(() => {
    const meta = document.createElement('meta');
    meta.name = 'robots';
    meta.content = 'noindex';
    document.head.append(meta);
    return () => meta.remove();
  }, []);
}

/**
 * `/shared/{token}`: one report, read-only, for someone without an account. No application frame and no link
 * into the application (they would lead to sign-in); the link's token is its only credential.
 */
export function SharedReportPage() {
  const { token } = useParams({ from: '/shared/$token' });
  useNoIndex();
  // An unknown, expired or revoked link answers 404 every time: asking again would not help.
  const shared = useQuery({ ...sharedReportQuery(token), retry: (n, e) => n < 2 && !isApiError(e) });
  useDocumentTitle(shared.data ? `Shared report · ${shared.data.project.title}` : 'Shared report');

  return (
    <div className="shared-page">
      <header className="shared-header">
        <span className="brand-mark" aria-hidden="true" />
        <p>
          <span className="shared-brand">Shared report</span>
          {shared.data && (
            <>
              {' · '}
              {shared.data.project.title}
              {' · '}expires {formatDateTime(shared.data.expiresAt)}
            </>
          )}
        </p>
      </header>
      <main className="page shared-main">
        {shared.isPending ? (
          <Loading label="Loading the shared report…" />
        ) : shared.isError ? (
          isApiError(shared.error, 404) ? (
            <div className="status-empty shared-gone">
              <h1 className="page-title">This link has expired or was revoked</h1>
              <p>Ask the person who shared it for a new link.</p>
            </div>
          ) : (
            <ErrorState
              title="The shared report could not be loaded."
              error={shared.error}
              onRetry={() => shared.refetch()}
            />
          )
        ) : (
          VIEWS[shared.data.report](shared.data)
        )}
      </main>
    </div>
  );
}
