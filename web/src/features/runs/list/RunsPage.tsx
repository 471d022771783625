import { useCallback, useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { Button } from '../../../components/Button';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { EmptyState, ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { queryKeys } from '../../../api/keys';
import { milestonesQuery, runsQuery, statusesQuery, type Run } from '../../../api/queries';
import { recordable } from '../../../api/statuses';
import { Progress } from '../../../components/run-lists/Progress';
import { cloneRun, closeRun } from '../api';
import { NewRunDialog } from './NewRunDialog';
import { EditRunDialog } from './EditRunDialog';
import '../../../components/run-lists/runs-list.css';
import { formatCount, formatDate, formatPassRate, todayLocal } from '../../../lib/format';
import { DueDate } from '../due/DueDate';
import { isRunOverdue } from '../due/due';
import { RUNS_SORTS, validateRunsPageSearch, type RunsPageSearch, type RunsSort } from '../search';
import { ViewsMenu } from '../../views';
import { passRateOf, searchRuns, sortRuns } from './order';
import { canRunTests, meQuery } from '../../../session/session';

const TYPE_NAMES: Record<string, string> = {
  static: 'Static, pinned',
  static_struct: 'Static',
  live: 'Live',
};

const SORT_NAMES: Record<RunsSort, string> = {
  newest: 'Newest first',
  oldest: 'Oldest first',
  title: 'Title',
  'pass-high': 'Pass rate, highest first',
  'pass-low': 'Pass rate, lowest first',
};

/**
 * `/project/{CODE}/runs`: open runs first, then closed ones; filters by milestone, assignee and type, a title
 * search and an order. The list endpoint sends every run and has no sort parameters: the page sorts what it has.
 */
export function RunsPage() {
  const { code } = useParams({ from: '/app/project/$code/runs' });
  const project = code.toUpperCase();
  useDocumentTitle(`Runs · ${project}`);
  const queryClient = useQueryClient();
  // Viewers read runs; the actions are for test-runners and up, as in the API.
  const me = useQuery(meQuery);
  const mayChange = me.data !== undefined && canRunTests(me.data.role);
  const runs = useQuery(runsQuery(code));
  const statuses = recordable(useQuery(statusesQuery()).data);
  const milestones = useQuery(milestonesQuery(code));
  const [creating, setCreating] = useState(false);
  const [closing, setClosing] = useState<Run>();
  const [editing, setEditing] = useState<Run>();
  // Filters live in the address: a filtered list can be shared and survives a reload.
  const urlSearch = useSearch({ from: '/app/project/$code/runs' });
  const { milestone = '', assignee = '', type = '', sort = 'newest' } = urlSearch;
  const navigate = useNavigate({ from: '/project/$code/runs' });
  const filterBy = (key: 'milestone' | 'assignee' | 'type' | 'q' | 'sort', value: string) =>
    void navigate({ search: (s) => ({ ...s, [key]: value || undefined }), replace: true });
  // Typed text stays local (every key at once); the address follows it.
  const [q, setQ] = useState(urlSearch.q ?? '');
  // A saved view is a place to go (Back returns): its search replaces the address's, the box shows its words.
  const applyView = useCallback(
    (view: RunsPageSearch) => {
      setQ(view.q ?? '');
      void navigate({ search: view });
    },
    [navigate],
  );
  const close = useMutation({
    mutationFn: (run: Run) => closeRun(code, run.id),
    onSuccess: async () => {
      setClosing(undefined);
      await queryClient.invalidateQueries({ queryKey: queryKeys.runs(code) });
    },
  });
  const clone = useMutation({
    mutationFn: (run: Run) => cloneRun(code, run.id, `${run.title} (again ${formatDate(new Date())})`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.runs(code) }),
  });

  const assignees = useMemo(() => {
    const m = new Map<number, string>();
    for (const r of runs.data ?? [])
      if (r.assignmentId && r.assignment) m.set(r.assignmentId, r.assignment.name);
    return [...m];
  }, [runs.data]);
  const shown = sortRuns(
    searchRuns(runs.data ?? [], q).filter(
      (r) =>
        (!milestone || String(r.milestoneId) === milestone) &&
        (!assignee || String(r.assignmentId) === assignee) &&
        (!type || r.type === type),
    ),
    sort,
  );
  const open = shown.filter((r) => !r.closedAt);
  const closed = shown.filter((r) => r.closedAt);
  const today = todayLocal();

  const list = (items: Run[], label: string) => (
    <ul className="runs-list" aria-label={label}>
      {items.map((r) => (
        <li key={r.id} className="runs-item">
          <div className="runs-main">
            <Link
              to="/project/$code/run/$runId"
              params={{ code: project, runId: String(r.id) }}
              className="runs-title"
            >
              {r.title}
            </Link>
            <span className="muted runs-meta">
              <time dateTime={r.createdAt}>{formatDate(r.createdAt)}</time> · {TYPE_NAMES[r.type] ?? r.type}
              {r.assignment ? ` · ${r.assignment.name}` : ''}
            </span>
            {r.dueAt && (
              <span className="muted runs-meta">
                <DueDate dueAt={r.dueAt} overdue={isRunOverdue(r, today)} />
              </span>
            )}
            {(r.milestone || r.plan) && (
              <span className="muted runs-meta runs-links">
                {r.milestone && r.milestoneId !== null && (
                  <span>
                    Milestone{' '}
                    <Link
                      to="/project/$code/milestone/$milestoneId"
                      params={{ code: project, milestoneId: String(r.milestoneId) }}
                    >
                      {r.milestone.title}
                    </Link>
                  </span>
                )}
                {r.plan && r.planId !== null && (
                  <span>
                    Plan{' '}
                    <Link
                      to="/project/$code/plan/$planId"
                      params={{ code: project, planId: String(r.planId) }}
                    >
                      {r.plan.title}
                    </Link>
                  </span>
                )}
              </span>
            )}
          </div>
          <div className="runs-figures">
            <Progress counts={r.statusCounts as Record<string, number> | null} statuses={statuses} />
            <span className="runs-rate" data-testid="pass-rate">
              Pass rate {formatPassRate(passRateOf(r.statusCounts as Record<string, number> | null))}
            </span>
          </div>
          <div className="runs-actions">
            <Link
              to="/project/$code/run/$runId/report"
              params={{ code: project, runId: String(r.id) }}
              className="btn btn-ghost"
              aria-label={`Report of ${r.title}`}
            >
              Report
            </Link>
            {mayChange && !r.planId && (
              <Button
                variant="ghost"
                aria-label={`Clone ${r.title}`}
                onPress={() => clone.mutate(r)}
                isPending={clone.isPending && clone.variables?.id === r.id}
              >
                Clone
              </Button>
            )}
            {mayChange && !r.closedAt && (
              <Button variant="ghost" aria-label={`Edit ${r.title}`} onPress={() => setEditing(r)}>
                Edit
              </Button>
            )}
            {mayChange && !r.closedAt && (
              <Button variant="ghost" aria-label={`Close ${r.title}`} onPress={() => setClosing(r)}>
                Close
              </Button>
            )}
          </div>
        </li>
      ))}
    </ul>
  );

  return (
    <div className="page">
      <div className="page-header">
        <h1 className="page-title">Runs</h1>
        <div className="runs-header-actions">
          <ViewsMenu
            code={project}
            page="runs"
            current={urlSearch}
            normalize={validateRunsPageSearch}
            apply={applyView}
          />
          {mayChange && (
            <Button variant="primary" onPress={() => setCreating(true)}>
              New run
            </Button>
          )}
        </div>
      </div>
      <div className="runs-filters" role="group" aria-label="Filter runs">
        <label className="field runs-search">
          <span className="field-label">Search titles</span>
          <input
            type="search"
            className="field-input"
            value={q}
            onChange={(e) => {
              setQ(e.target.value);
              filterBy('q', e.target.value.trim() ? e.target.value : '');
            }}
          />
        </label>
        <label className="field">
          <span className="field-label">Milestone</span>
          <select
            className="field-input"
            value={milestone}
            onChange={(e) => filterBy('milestone', e.target.value)}
          >
            <option value="">Any</option>
            {(milestones.data?.milestones ?? []).map((m) => (
              <option key={m.id} value={m.id}>
                {m.title}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="field-label">Assignee</span>
          <select
            className="field-input"
            value={assignee}
            onChange={(e) => filterBy('assignee', e.target.value)}
          >
            <option value="">Anyone</option>
            {assignees.map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="field-label">Type</span>
          <select className="field-input" value={type} onChange={(e) => filterBy('type', e.target.value)}>
            <option value="">Any</option>
            {Object.entries(TYPE_NAMES).map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="field-label">Sort by</span>
          <select
            className="field-input"
            value={sort}
            onChange={(e) => filterBy('sort', e.target.value === 'newest' ? '' : e.target.value)}
          >
            {RUNS_SORTS.map((s) => (
              <option key={s} value={s}>
                {SORT_NAMES[s]}
              </option>
            ))}
          </select>
        </label>
      </div>
      {clone.isError && (
        <p className="form-error" role="alert">
          The run could not be cloned: {clone.error instanceof Error ? clone.error.message : ''}
        </p>
      )}
      {runs.isPending ? (
        <Loading label="Loading the runs…" />
      ) : runs.isError ? (
        <ErrorState title="The runs could not be loaded." error={runs.error} onRetry={() => runs.refetch()} />
      ) : (runs.data ?? []).length === 0 ? (
        <EmptyState title="No runs yet.">
          <p>A run is a set of cases to test now. Create one from folders, tags or priorities.</p>
          {mayChange && (
            <Button variant="primary" onPress={() => setCreating(true)}>
              New run
            </Button>
          )}
        </EmptyState>
      ) : (
        <>
          <section className="panel" aria-labelledby="open-runs">
            <h2 id="open-runs" className="panel-title">
              Open <span className="count">{formatCount(open.length)}</span>
            </h2>
            {open.length === 0 ? <p className="muted">No open run matches.</p> : list(open, 'Open runs')}
          </section>
          <section className="panel runs-closed" aria-labelledby="closed-runs">
            <h2 id="closed-runs" className="panel-title">
              Closed <span className="count">{formatCount(closed.length)}</span>
            </h2>
            {closed.length === 0 ? (
              <p className="muted">No closed run matches.</p>
            ) : (
              list(closed, 'Closed runs')
            )}
          </section>
        </>
      )}
      <NewRunDialog code={project} isOpen={creating} onOpenChange={setCreating} />
      <EditRunDialog code={project} run={editing} onClose={() => setEditing(undefined)} />
      {closing && (
        <ConfirmDialog
          title={`Close “${closing.title}”?`}
          onClose={() => setClosing(undefined)}
          confirmLabel="Close run"
          onConfirm={() => close.mutate(closing)}
          isPending={close.isPending}
          error={
            close.isError
              ? close.error instanceof Error
                ? close.error.message
                : 'The run could not be closed.'
              : undefined
          }
        >
          <p>A closed run is read-only: no result can be added to it. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
