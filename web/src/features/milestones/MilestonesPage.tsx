import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { queryKeys } from '../../api/keys';
import { milestonesQuery, runsQuery, statusesQuery } from '../../api/queries';
import { recordable } from '../../api/statuses';
import { Button } from '../../components/Button';
import { Progress, sumCounts } from '../../components/run-lists/Progress';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { formatCount, formatCountOf, formatDay, formatPassRate } from '../../lib/format';
import { passRateOf } from '../runs';
import { createMilestone, setMilestoneArchived } from './api';
import { isOverdue, todayLocal } from './overdue';
import '../../components/run-lists/runs-list.css';
import './milestones.css';

/**
 * `/project/{CODE}/milestones`: each milestone with its due date (overdue marked), description and its runs'
 * progress added up; create (with a due date), archive, unarchive; each opens its page.
 */
export function MilestonesPage() {
  const { code } = useParams({ from: '/app/project/$code/milestones' });
  const project = code.toUpperCase();
  useDocumentTitle(`Milestones · ${project}`);
  const queryClient = useQueryClient();
  const milestones = useQuery(milestonesQuery(project));
  const runs = useQuery(runsQuery(project));
  const statuses = recordable(useQuery(statusesQuery()).data);
  const [title, setTitle] = useState('');
  const [due, setDue] = useState('');
  const today = todayLocal();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.milestones(project) });
  const create = useMutation({
    mutationFn: () => createMilestone(project, { title: title.trim(), ...(due ? { due } : {}) }),
    onSuccess: async () => {
      setTitle('');
      setDue('');
      await refresh();
    },
  });
  const archive = useMutation({
    mutationFn: (m: { id: number; archived: boolean }) => setMilestoneArchived(project, m.id, m.archived),
    onSuccess: refresh,
  });

  const list = milestones.data?.milestones ?? [];
  const row = (m: (typeof list)[number]) => {
    const under = (runs.data ?? []).filter((r) => r.milestoneId === m.id);
    const archived = !!m.archivedAt;
    const counts = sumCounts(under.map((r) => r.statusCounts as Record<string, number> | null));
    const overdue = isOverdue(m, under, today);
    return (
      <li key={m.id} className="runs-item">
        <div className="runs-main">
          <Link
            to="/project/$code/milestone/$milestoneId"
            params={{ code: project, milestoneId: String(m.id) }}
            className="runs-title"
          >
            {m.title}
          </Link>
          <span className="muted runs-meta">
            {formatCountOf(under.length, 'run')} · {formatCount(under.filter((r) => !r.closedAt).length)} open
            {m.due && (
              <>
                {' · '}Due <time dateTime={m.due}>{formatDay(m.due)}</time>
              </>
            )}
            {overdue && <span className="badge badge-overdue">Overdue</span>}
          </span>
          {m.description && <p className="milestone-description-short">{m.description}</p>}
        </div>
        <div className="runs-figures">
          <Progress counts={counts} statuses={statuses} />
          <span className="runs-rate">Pass rate {formatPassRate(passRateOf(counts))}</span>
        </div>
        <div className="runs-actions">
          <Link
            to="/project/$code/milestone/$milestoneId/report"
            params={{ code: project, milestoneId: String(m.id) }}
            className="btn btn-ghost"
            aria-label={`${m.title}: report`}
          >
            Report
          </Link>
          <Button
            variant="ghost"
            aria-label={`${archived ? 'Unarchive' : 'Archive'} ${m.title}`}
            onPress={() => archive.mutate({ id: m.id, archived: !archived })}
          >
            {archived ? 'Unarchive' : 'Archive'}
          </Button>
        </div>
      </li>
    );
  };
  const active = list.filter((m) => !m.archivedAt);
  const archived = list.filter((m) => m.archivedAt);
  return (
    <div className="page">
      <div className="page-header">
        <h1 className="page-title">Milestones</h1>
      </div>
      <form
        className="runs-filters"
        onSubmit={(e) => {
          e.preventDefault();
          if (title.trim()) create.mutate();
        }}
      >
        <label className="field">
          <span className="field-label">New milestone</span>
          <input
            className="field-input"
            value={title}
            maxLength={255}
            onChange={(e) => setTitle(e.target.value)}
            placeholder="Release 2.5"
          />
        </label>
        <label className="field">
          <span className="field-label">Due date (optional)</span>
          <input className="field-input" type="date" value={due} onChange={(e) => setDue(e.target.value)} />
        </label>
        <Button type="submit" variant="primary" isPending={create.isPending} className="milestone-add">
          Add milestone
        </Button>
        {create.isError && (
          <p className="form-error" role="alert">
            {create.error instanceof Error ? create.error.message : 'The milestone could not be created.'}
          </p>
        )}
      </form>
      {milestones.isPending ? (
        <Loading label="Loading the milestones…" />
      ) : milestones.isError ? (
        <ErrorState
          title="The milestones could not be loaded."
          error={milestones.error}
          onRetry={() => milestones.refetch()}
        />
      ) : list.length === 0 ? (
        <EmptyState title="No milestones yet.">
          <p>A milestone (a release, a sprint) gathers runs and shows their progress together.</p>
        </EmptyState>
      ) : (
        <>
          <section className="panel" aria-labelledby="active-ms">
            <h2 id="active-ms" className="panel-title">
              Active <span className="count">{formatCount(active.length)}</span>
            </h2>
            {active.length === 0 ? (
              <p className="muted">None.</p>
            ) : (
              <ul className="runs-list" aria-label="Active milestones">
                {active.map(row)}
              </ul>
            )}
          </section>
          <section className="panel runs-closed" aria-labelledby="archived-ms">
            <h2 id="archived-ms" className="panel-title">
              Archived <span className="count">{formatCount(archived.length)}</span>
            </h2>
            {archived.length === 0 ? (
              <p className="muted">None.</p>
            ) : (
              <ul className="runs-list" aria-label="Archived milestones">
                {archived.map(row)}
              </ul>
            )}
          </section>
        </>
      )}
    </div>
  );
}
