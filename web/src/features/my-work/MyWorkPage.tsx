import { useState } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Button } from '../../components/Button';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { isPriority, PRIORITY_NAMES } from '../../api/priorities';
import { formatCount, todayLocal } from '../../lib/format';
import { DueDate } from '../runs';
import { MY_WORK_PAGE, myWorkQuery } from './api';
import { groupByRun, type RunGroup } from './group';
import './my-work.css';

/**
 * `/my-work`: the signed-in person's open cases in open runs, by run, the most overdue run first
 * (docs/api-decisions.md#my-work). A run's title opens the run page showing only their cases (`assignee=me`); a
 * case opens it with that case chosen.
 */
export function MyWorkPage() {
  useDocumentTitle('My work');
  // The reader's day, fixed while the page is open: overdue is read against it, and it keys the cache.
  const [today] = useState(todayLocal);
  const work = useInfiniteQuery(myWorkQuery(today));
  if (work.isPending) return <Loading label="Loading your work…" />;
  if (work.isError)
    return (
      <div className="page">
        <ErrorState
          title="Your work could not be loaded."
          error={work.error}
          onRetry={() => work.refetch()}
        />
      </div>
    );
  const first = work.data.pages[0]!;
  const groups = groupByRun(work.data.pages);
  const loaded = work.data.pages.reduce((n, p) => n + p.data.length, 0);
  return (
    <div className="page my-work">
      <div className="page-header">
        <h1 className="page-title">My work</h1>
      </div>
      <p className="my-work-summary" data-testid="my-work-summary">
        <span>{formatCount(first.open)} open</span>
        <span>{formatCount(first.done)} done</span>
        <span className={first.overdue > 0 ? 'my-work-overdue' : undefined}>
          {formatCount(first.overdue)} overdue
        </span>
      </p>
      {groups.length === 0 ? (
        <EmptyState title="Nothing assigned to you is open.">
          <p>Cases assigned to you in open runs show here, the most overdue first.</p>
        </EmptyState>
      ) : (
        groups.map((g) => <RunWork key={g.run.id} group={g} />)
      )}
      {work.hasNextPage && (
        <Button onPress={() => void work.fetchNextPage()} isPending={work.isFetchingNextPage}>
          Show {formatCount(Math.min(MY_WORK_PAGE, first.total - loaded))} more
        </Button>
      )}
    </div>
  );
}

function RunWork({ group: { run, items } }: { group: RunGroup }) {
  const code = run.project.code;
  const headingId = `my-work-run-${run.id}`;
  return (
    <section className="panel my-work-run" aria-labelledby={headingId}>
      <h2 className="panel-title my-work-run-title" id={headingId}>
        <Link
          to="/project/$code/run/$runId"
          params={{ code, runId: String(run.id) }}
          search={{ assignee: 'me' }}
        >
          {run.title}
        </Link>
      </h2>
      <p className="muted my-work-run-meta">
        <span>
          {code} · {run.project.title}
        </span>
        {run.dueAt && <DueDate dueAt={run.dueAt} overdue={run.overdue ?? false} />}
        <span>
          {formatCount(run.open)} open · {formatCount(run.done)} done
        </span>
      </p>
      <ul className="my-work-cases" aria-label={`Your open cases in ${run.title}`}>
        {items.map((i) => (
          <li key={i.tcase.id} className="my-work-case">
            <Link
              to="/project/$code/run/$runId"
              params={{ code, runId: String(run.id) }}
              search={{ assignee: 'me', tcase: i.tcase.seq }}
              className="my-work-case-link"
            >
              <span className="my-work-key">
                {code}-{i.tcase.seq}
              </span>{' '}
              {i.tcase.title}
            </Link>
            <span className="muted my-work-case-facts">
              {isPriority(i.tcase.priority) ? PRIORITY_NAMES[i.tcase.priority] : i.tcase.priority}
              {i.dueAt ? <DueDate dueAt={i.dueAt} overdue={i.overdue} /> : <span>No due date</span>}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
