import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { statusesQuery } from '../../../api/queries';
import { STATUS_FILL } from '../../../api/statuses';
import { Button } from '../../../components/Button';
import { RelativeTime } from '../../../components/RelativeTime';
import { formatCount, formatDuration } from '../../../lib/format';
import { resultHistoryQuery } from '../api';

const PAGE_SIZE = 10;

/**
 * The case's results across runs (its latest result in each run), newest first: which run, what status, when, who
 * and how long. Ten at a time; "Show more" loads the next ten.
 */
export function ResultHistory({ code, id, seq }: { code: string; id: string; seq: number }) {
  const history = useInfiniteQuery(resultHistoryQuery(code, id, PAGE_SIZE));
  const statuses = useQuery(statusesQuery());
  const byId = new Map((statuses.data ?? []).map((s) => [s.id as string, s]));
  const results = history.data?.pages.flatMap((p) => p.results) ?? [];
  const total = history.data?.pages[0]?.total;
  const project = code.toUpperCase();
  return (
    <section aria-labelledby="results" className="panel tcase-section">
      <h2 id="results" className="panel-title">
        Results across runs {total !== undefined && <span className="count">{formatCount(total)}</span>}
      </h2>
      {history.isPending ? (
        <p role="status" className="muted">
          Loading the results…
        </p>
      ) : history.isError ? (
        <p className="form-error" role="alert">
          The results could not be loaded.{' '}
          <Button variant="ghost" onPress={() => void history.refetch()}>
            Try again
          </Button>
        </p>
      ) : results.length === 0 ? (
        <p className="muted">This case has no result in any run yet.</p>
      ) : (
        <>
          <ul className="result-history" aria-label="Results, latest first">
            {results.map((r) => {
              const status = byId.get(r.status);
              return (
                <li key={r.id} className="result-row">
                  <Link
                    className="result-run"
                    to="/project/$code/run/$runId"
                    params={{ code: project, runId: String(r.run.id) }}
                    search={r.inRun ? { tcase: seq } : {}}
                  >
                    {r.run.title}
                  </Link>
                  <span className="result-status">
                    <span
                      className="status-dot"
                      aria-hidden="true"
                      style={{ background: STATUS_FILL[status?.color ?? 'gray'] }}
                    />
                    {status?.name ?? r.status}
                  </span>
                  <span className="result-meta muted">
                    <RelativeTime iso={r.createdAt} /> · {r.author?.name ?? 'a removed user'}
                    {r.timeTaken !== null && ` · ${formatDuration(r.timeTaken)}`}
                    {!r.inRun && ' · case since removed from the run'}
                  </span>
                </li>
              );
            })}
          </ul>
          {history.hasNextPage && (
            <Button onPress={() => void history.fetchNextPage()} isPending={history.isFetchingNextPage}>
              Show more
            </Button>
          )}
          {history.isFetchNextPageError && (
            <p className="form-error" role="alert">
              More results could not be loaded.
            </p>
          )}
        </>
      )}
    </section>
  );
}
