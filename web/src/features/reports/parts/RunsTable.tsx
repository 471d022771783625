import type { ReactNode } from 'react';
import type { StatusSetting } from '../../../api/statuses';
import { formatCount, formatPassRate } from '../../../lib/format';
import { statusColumns, type Counts } from './parts';
import { ReportTable, type Column } from './ReportTable';

export interface ReportRun {
  id: number;
  title: string;
  closed: boolean;
  counts: Counts;
  passRate: number | null;
}

/** What a run's title links to; absent on a shared page, where nothing may lead to pages behind sign-in. */
export type RunLink = (run: { id: number; title: string }) => ReactNode;

/** The runs of a milestone or a plan: state, cases per status, total and pass rate. */
export function RunsTable({
  caption,
  runs,
  statuses,
  runLink,
}: {
  caption: string;
  runs: ReportRun[];
  statuses: StatusSetting[];
  runLink?: RunLink;
}) {
  const columns: Column<ReportRun>[] = [
    {
      key: 'title',
      header: 'Run',
      cell: (r) => (runLink ? runLink(r) : r.title),
      sortBy: (r) => r.title,
      ascendingFirst: true,
    },
    { key: 'state', header: 'State', cell: (r) => (r.closed ? 'Closed' : 'Open') },
    ...statusColumns(
      statuses,
      runs.map((r) => r.counts),
    ).map((s): Column<ReportRun> => ({
      key: s.id,
      header: s.name,
      numeric: true,
      cell: (r) => formatCount(r.counts[s.id] ?? 0),
      sortBy: (r) => r.counts[s.id] ?? 0,
    })),
    {
      key: 'all',
      header: 'Cases',
      numeric: true,
      cell: (r) => formatCount(r.counts.all ?? 0),
      sortBy: (r) => r.counts.all ?? 0,
    },
    {
      key: 'passRate',
      header: 'Pass rate',
      numeric: true,
      cell: (r) => formatPassRate(r.passRate),
      sortBy: (r) => r.passRate ?? -1,
    },
  ];
  return <ReportTable caption={caption} columns={columns} rows={runs} rowKey={(r) => r.id} />;
}
