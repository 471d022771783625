import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { projectCountsQuery, projectQuery } from './api';
import { ProjectAdmin } from './ProjectAdmin';
import './project-admin.css';
import { SafeHtml } from '../../components/rich-text/SafeHtml';

const numberFormat = new Intl.NumberFormat();

export function ProjectOverviewPage() {
  const { code } = useParams({ from: '/app/project/$code' });
  const project = useQuery(projectQuery(code));
  const counts = useQuery(projectCountsQuery(code));
  useDocumentTitle(project.data?.title);

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
  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/">Projects</Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page">{p.code}</span>
      </nav>
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
        <Link to="/project/$code/repository" params={{ code: p.code }} className="btn btn-primary">
          Test cases
        </Link>
        <ProjectAdmin project={p} />
      </div>

      <div className="overview-grid">
        <section aria-labelledby="about" className="panel">
          <h2 id="about" className="panel-title">
            About
          </h2>
          {description ? (
            // The service sanitises every HTML field on write with one allow-list (D22).
            <SafeHtml html={description} />
          ) : (
            <p className="muted">No description yet.</p>
          )}
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

        <section aria-labelledby="numbers" className="panel">
          <h2 id="numbers" className="panel-title">
            At a glance
          </h2>
          {counts.isPending ? (
            <Loading label="Counting…" />
          ) : counts.isError ? (
            <ErrorState
              title="The counts could not be loaded."
              error={counts.error}
              onRetry={() => counts.refetch()}
            />
          ) : (
            <dl className="stats">
              <div className="stat">
                <dt>Test cases</dt>
                <dd>{numberFormat.format(counts.data.cases)}</dd>
              </div>
              <div className="stat">
                <dt>Open runs</dt>
                <dd>{numberFormat.format(counts.data.openRuns.length)}</dd>
              </div>
            </dl>
          )}
        </section>

        <section aria-labelledby="open-runs" className="panel panel-wide">
          <h2 id="open-runs" className="panel-title">
            Open runs{' '}
            <Link to="/project/$code/runs" params={{ code: code.toUpperCase() }} className="panel-title-link">
              All runs
            </Link>
          </h2>
          {counts.data && counts.data.openRuns.length === 0 && (
            <EmptyState title="No open runs.">
              <p>
                Runs started from the API or the upload CLI appear here while they are open.{' '}
                <Link to="/project/$code/runs" params={{ code: code.toUpperCase() }}>
                  Create a run
                </Link>
              </p>
            </EmptyState>
          )}
          {counts.data && counts.data.openRuns.length > 0 && (
            <ul className="run-list">
              {counts.data.openRuns.map((run) => {
                const all = run.statusCounts?.all ?? 0;
                const done = all - (run.statusCounts?.open ?? 0);
                const percent = all ? Math.round((done / all) * 100) : 0;
                return (
                  <li key={run.id} className="run-row">
                    <Link
                      to="/project/$code/run/$runId"
                      params={{ code: p.code, runId: String(run.id) }}
                      className="run-link"
                    >
                      {run.title}
                    </Link>
                    {run.milestone && <span className="muted"> · {run.milestone.title}</span>}
                    <div className="run-progress">
                      <progress
                        max={100}
                        value={percent}
                        aria-label={`${run.title}: ${done} of ${all} done`}
                      />
                      <span className="muted">
                        {done} of {all} done
                      </span>
                    </div>
                  </li>
                );
              })}
            </ul>
          )}
        </section>
      </div>
    </div>
  );
}
