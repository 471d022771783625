import { useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { useVirtualizer } from '@tanstack/react-virtual';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { runQuery, runTestCasesQuery, type RunTestCase } from './api';

const STATUSES = ['passed', 'failed', 'blocked', 'skipped', 'open'] as const;
const ROW_HEIGHT = 52;

/** Thousands of cases stay smooth: only the rows in view are in the DOM (TanStack Virtual). */
function CaseList({ code, cases }: { code: string; cases: RunTestCase[] }) {
  const scroller = useRef<HTMLDivElement>(null);
  const rows = useVirtualizer({
    count: cases.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  return (
    <div ref={scroller} className="virtual-scroller">
      <ul className="case-rows" style={{ height: rows.getTotalSize() }} aria-label="Test cases of the run">
        {rows.getVirtualItems().map((item) => {
          const c = cases[item.index];
          return (
            <li
              key={c.id}
              className="case-row"
              aria-setsize={cases.length}
              aria-posinset={item.index + 1}
              style={{ transform: `translateY(${item.start}px)`, height: item.size }}
            >
              <span className="project-code">
                {code}-{c.seq}
              </span>
              <Link
                to="/project/$code/tcase/$seq"
                params={{ code, seq: String(c.seq) }}
                className="case-title"
              >
                {c.title}
              </Link>
              {c.folder && <span className="case-folder muted">{c.folder.title}</span>}
              <span className={`status status-${c.status}`}>{c.status}</span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** `/project/{CODE}/run/{id}` (printed by the upload CLI after every upload): the run and where it stands. */
export function RunPage() {
  const { code, runId } = useParams({ from: '/app/project/$code/run/$runId' });
  const id = Number(runId);
  const run = useQuery({ ...runQuery(code, id), enabled: Number.isInteger(id) });
  const cases = useQuery({ ...runTestCasesQuery(code, id), enabled: Number.isInteger(id) });
  useDocumentTitle(run.data?.title ?? `Run ${runId}`);
  const project = code.toUpperCase();

  if (!Number.isInteger(id))
    return (
      <div className="page">
        <ErrorState
          title={`“${runId}” is not a run number.`}
          error={new Error('Run addresses end in a number.')}
        />
      </div>
    );
  if (run.isPending) return <Loading label={`Loading run ${runId}…`} />;
  if (run.isError)
    return (
      <div className="page">
        <ErrorState
          title={`Run ${runId} could not be opened.`}
          error={run.error}
          onRetry={() => run.refetch()}
        />
      </div>
    );

  const r = run.data;
  const counts = r.statusCounts;
  const all = counts?.all ?? 0;
  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/">Projects</Link>
        <span aria-hidden="true">/</span>
        <Link to="/project/$code" params={{ code: project }}>
          {project}
        </Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page">Run {r.id}</span>
      </nav>
      <div className="page-header">
        <div>
          <h1 className="page-title">
            {r.title}
            {r.closedAt ? (
              <span className="badge">Closed</span>
            ) : (
              <span className="badge badge-open">Open</span>
            )}
          </h1>
          {r.milestone && <p className="page-subtitle">Milestone: {r.milestone.title}</p>}
        </div>
      </div>

      {counts && (
        <section aria-labelledby="where" className="panel">
          <h2 id="where" className="panel-title">
            Where it stands
          </h2>
          <div className="status-bar" aria-hidden="true">
            {STATUSES.map((s) =>
              counts[s] ? (
                <span key={s} className={`status-bar-part status-bg-${s}`} style={{ flexGrow: counts[s] }} />
              ) : null,
            )}
          </div>
          <dl className="status-counts">
            {STATUSES.map((s) => (
              <div key={s}>
                <dt className={`status status-${s}`}>{s}</dt>
                <dd>
                  {counts[s]} <span className="muted">of {all}</span>
                </dd>
              </div>
            ))}
          </dl>
        </section>
      )}

      <section aria-labelledby="cases" className="panel tcase-section">
        <h2 id="cases" className="panel-title">
          Test cases <span className="count">{cases.data?.length ?? '…'}</span>
        </h2>
        {cases.isPending ? (
          <Loading label="Loading the test cases…" />
        ) : cases.isError ? (
          <ErrorState
            title="The test cases could not be loaded."
            error={cases.error}
            onRetry={() => cases.refetch()}
          />
        ) : cases.data.length === 0 ? (
          <EmptyState title="This run has no test cases." />
        ) : (
          <CaseList code={project} cases={cases.data} />
        )}
      </section>
    </div>
  );
}
