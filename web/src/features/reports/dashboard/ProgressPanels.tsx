import { Link } from '@tanstack/react-router';
import type { Run } from '../../../api/queries';
import type { StatusSetting } from '../../../api/statuses';
import { EmptyState, Loading } from '../../../components/Status';
import type { MilestoneReport } from '../api';
import { ChartPanel, DataTable } from './ChartPanel';
import { formatCount, formatPassRate } from '../../../lib/format';
import { countsText } from './chart';
import { StackedBar } from './StackedBar';

const RUNS = 6;

const doneOf = (c: Record<string, number> | null | undefined) => (c?.all ?? 0) - (c?.open ?? 0);
const doneText = (c: Record<string, number> | null | undefined) =>
  `${formatCount(doneOf(c))} of ${formatCount(c?.all ?? 0)} done`;

/** The open runs (newest first), each bar what is done of that run, coloured by status: the signed-in page only. */
export function OpenRunsPanel({
  code,
  runs,
  statuses,
}: {
  code: string;
  runs: Run[] | undefined;
  statuses: StatusSetting[];
}) {
  const top = (runs ?? []).slice(0, RUNS);
  return (
    <ChartPanel
      id="dash-open-runs"
      title="Open runs"
      className="dash-span-3"
      chart={
        runs === undefined ? (
          <Loading label="Loading the open runs…" />
        ) : top.length === 0 ? (
          <EmptyState title="No open runs.">
            <p>
              Runs started here, from the API or the upload CLI appear while they are open.{' '}
              <Link to="/project/$code/runs" params={{ code }}>
                Create a run
              </Link>
            </p>
          </EmptyState>
        ) : (
          <ul className="dash-progress-list" aria-label="Open runs">
            {top.map((r) => (
              <li key={r.id}>
                <div className="dash-progress-head">
                  <Link
                    to="/project/$code/run/$runId"
                    params={{ code, runId: String(r.id) }}
                    className="run-link"
                  >
                    {r.title}
                  </Link>
                  <span className="muted">{doneText(r.statusCounts)}</span>
                </div>
                <StackedBar
                  counts={r.statusCounts ?? { all: 0 }}
                  statuses={statuses}
                  progress
                  label={`${r.title}: ${doneText(r.statusCounts)}`}
                />
              </li>
            ))}
          </ul>
        )
      }
      table={
        top.length === 0 ? null : (
          <DataTable
            caption="Open runs, newest first"
            columns={['Run', 'Done', 'Cases', 'Results']}
            rows={top.map((r) => ({
              key: String(r.id),
              head: r.title,
              cells: [
                formatCount(doneOf(r.statusCounts)),
                formatCount(r.statusCounts?.all ?? 0),
                countsText(r.statusCounts, statuses),
              ],
            }))}
          />
        )
      }
      footer={
        runs !== undefined &&
        runs.length > 0 && (
          <Link to="/project/$code/runs" params={{ code }} className="dash-more">
            {runs.length > top.length ? `All ${formatCount(runs.length)} open runs` : 'All runs'}
          </Link>
        )
      }
    />
  );
}

/** The newest active milestones with their runs' counts summed. */
export function MilestonesPanel({
  code,
  progress,
  statuses,
}: {
  code: string;
  progress: { total: number; milestones: MilestoneReport[] } | undefined;
  statuses: StatusSetting[];
}) {
  const list = progress?.milestones ?? [];
  return (
    <ChartPanel
      id="dash-milestones"
      title="Milestones"
      className="dash-span-3"
      chart={
        progress === undefined ? (
          <Loading label="Loading the milestones…" />
        ) : list.length === 0 ? (
          <EmptyState title="No active milestones.">
            <p>
              File runs under a milestone to follow a release here.{' '}
              <Link to="/project/$code/milestones" params={{ code }}>
                Milestones
              </Link>
            </p>
          </EmptyState>
        ) : (
          <ul className="dash-progress-list" aria-label="Active milestones">
            {list.map((m) => (
              <li key={m.milestone.id}>
                <div className="dash-progress-head">
                  <span className="dash-strong">{m.milestone.title}</span>
                  <span className="muted">
                    {formatCount(m.runs.length)} {m.runs.length === 1 ? 'run' : 'runs'} ·{' '}
                    {formatPassRate(m.passRate, 'whole')} passed · {doneText(m.counts)}
                  </span>
                </div>
                <StackedBar
                  counts={m.counts}
                  statuses={statuses}
                  progress
                  label={`${m.milestone.title}: ${doneText(m.counts)}`}
                />
              </li>
            ))}
          </ul>
        )
      }
      table={
        list.length === 0 ? null : (
          <DataTable
            caption="Active milestones, newest first"
            columns={['Milestone', 'Runs', 'Pass rate', 'Done', 'Cases']}
            rows={list.map((m) => ({
              key: String(m.milestone.id),
              head: m.milestone.title,
              cells: [
                formatCount(m.runs.length),
                formatPassRate(m.passRate, 'whole'),
                formatCount(doneOf(m.counts)),
                formatCount(m.counts.all),
              ],
            }))}
          />
        )
      }
      footer={
        progress !== undefined &&
        progress.total > list.length && (
          <Link to="/project/$code/milestones" params={{ code }} className="dash-more">
            All {formatCount(progress.total)} active milestones
          </Link>
        )
      }
    />
  );
}
