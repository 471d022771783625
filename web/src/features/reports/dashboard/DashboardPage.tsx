import { useEffect, useState } from 'react';
import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { queryKeys } from '../../../api/keys';
import { statusesQuery } from '../../../api/queries';
import { recordable } from '../../../api/statuses';
import { SafeHtml } from '../../../components/rich-text/SafeHtml';
import { ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import type { DashboardData } from '../api';
import { ShareButton } from '../share/ShareButton';
import { dashboardQueries, projectPageQueries } from './queries';
import { DashboardView } from './DashboardView';

/** `/project/$code`: the project's home, its dashboard with what the project says about itself. */
export function DashboardPage() {
  const { code: raw } = useParams({ from: '/app/project/$code' });
  const code = raw.toUpperCase();
  const [by, setBy] = useState<'run' | 'day'>('run');
  const qc = useQueryClient();
  const page = projectPageQueries(code);
  const project = useQuery(page.project);
  const counts = useQuery(page.counts);
  const milestones = useQuery(page.milestones);
  const statuses = useQuery(statusesQuery());
  const reports = dashboardQueries(code, by);
  const results = useQueries({ queries: Object.values(reports) });
  const names = Object.keys(reports) as (keyof typeof reports)[];
  useDocumentTitle(project.data?.title);

  // Results recorded elsewhere (the run page, the API, the CLI) change every figure here: coming back asks again.
  useEffect(
    () => () => {
      void qc.invalidateQueries({ queryKey: queryKeys.reports(code), refetchType: 'none' });
      void qc.invalidateQueries({ queryKey: queryKeys.projectCounts(code), refetchType: 'none' });
    },
    [qc, code],
  );

  if (project.isPending) return <Loading label="Loading the project…" />;
  if (project.isError)
    return (
      <div className="page">
        <ErrorState
          title={`Project ${code} could not be opened.`}
          error={project.error}
          onRetry={() => project.refetch()}
        >
          <Link to="/">All projects</Link>
        </ErrorState>
      </div>
    );

  const p = project.data;
  const description = p.overviewDescription || p.description;
  const failed = results.filter((r) => r.isError);
  const data = Object.fromEntries(names.map((n, i) => [n, results[i].data])) as Partial<DashboardData>;
  return (
    <div className="page dash-page">
      <div className="page-header">
        <div>
          <h1 className="page-title">
            {p.title}
            {p.archivedAt && <span className="badge">Archived</span>}
          </h1>
          {p.overviewTitle && p.overviewTitle !== p.title && (
            <p className="page-subtitle">{p.overviewTitle}</p>
          )}
        </div>
        <div className="dash-actions">
          <ShareButton project={p.code} report="dashboard" params={{}} />
          <Link to="/project/$code/runs" params={{ code: p.code }} className="btn btn-secondary">
            Runs
          </Link>
          <Link to="/project/$code/repository" params={{ code: p.code }} className="btn btn-primary">
            Test cases
          </Link>
        </div>
      </div>
      {failed.length > 0 && (
        <ErrorState
          title="Some of the dashboard could not be loaded."
          error={failed[0].error}
          onRetry={() => failed.forEach((r) => void r.refetch())}
        />
      )}
      <DashboardView
        code={p.code}
        data={data}
        statuses={recordable(statuses.data)}
        linked
        trendBy={by}
        onTrendBy={setBy}
        openRuns={counts.data?.openRuns}
        caseCount={counts.data?.cases}
        milestones={milestones.data}
      />
      {(description || p.links.length > 0) && (
        <section aria-labelledby="about" className="panel dash-about">
          <h2 id="about" className="panel-title">
            About
          </h2>
          {/* The service sanitises every HTML field on write with one allow-list (D22). */}
          {description && <SafeHtml html={description} />}
          {p.links.length > 0 && (
            <>
              <h3 className="panel-subtitle">Links</h3>
              <ul className="link-list">
                {p.links.map((l) => (
                  <li key={l.url + l.text}>
                    <a href={l.url} target="_blank" rel="noreferrer noopener">
                      {l.text || l.url}
                    </a>
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}
    </div>
  );
}
