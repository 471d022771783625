import { Button } from '../../../components/Button';
import { EmptyState, Loading } from '../../../components/Status';
import type { StatusSetting } from '../../../api/statuses';
import type { TrendReport } from '../api';
import { ChartPanel, DataTable } from './ChartPanel';
import { formatCount, formatPassRate } from '../../../lib/format';
import { chartStatuses } from './chart';
import { pointName, TrendChart } from './TrendChart';
import type { ReactNode } from 'react';

/** The pass-rate trend by run or by day (a pair of pressed buttons; the shared page has by run only). */
export function TrendPanel({
  trend,
  by,
  onBy,
  statuses,
  empty,
}: {
  trend: TrendReport | undefined;
  by: 'run' | 'day';
  onBy?: (by: 'run' | 'day') => void;
  statuses: StatusSetting[];
  /** What to do when there is nothing yet (a link to the runs on the signed-in page). */
  empty: ReactNode;
}) {
  const points = trend?.points ?? [];
  const shown = chartStatuses(statuses).filter((s) => points.some((p) => p.counts[s.id as 'passed']));
  const title = by === 'run' ? 'Pass rate by run' : 'Pass rate by day';
  return (
    <ChartPanel
      id="dash-trend"
      title={title}
      className="dash-span-4"
      actions={
        onBy && (
          <div role="group" aria-label="Trend by" className="dash-seg">
            {(['run', 'day'] as const).map((b) => (
              <Button
                key={b}
                variant="ghost"
                aria-pressed={by === b}
                onPress={() => onBy(b)}
                className="dash-toggle"
              >
                By {b}
              </Button>
            ))}
          </div>
        )
      }
      chart={
        trend === undefined ? (
          <Loading label="Loading the trend…" />
        ) : points.length === 0 ? (
          <EmptyState title="No results yet.">{empty}</EmptyState>
        ) : (
          <TrendChart points={points} by={by} statuses={statuses} />
        )
      }
      table={
        points.length === 0 ? null : (
          <DataTable
            caption={`${title}, oldest first`}
            columns={[by === 'run' ? 'Run' : 'Day', 'Pass rate', ...shown.map((s) => s.name), 'All']}
            rows={points.map((p) => ({
              key: p.key,
              head: pointName(p, by),
              cells: [
                formatPassRate(p.passRate, 'whole'),
                ...shown.map((s) => formatCount(p.counts[s.id as 'passed'])),
                formatCount(p.counts.all),
              ],
            }))}
          />
        )
      }
    />
  );
}
