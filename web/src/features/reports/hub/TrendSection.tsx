import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { configurationsQuery, milestonesQuery } from '../../../api/queries';
import type { StatusSetting } from '../../../api/statuses';
import { reportCsvUrl, trendQuery, type TrendReport } from '../api';
import { formatCount, formatDay, formatPassRate } from '../../../lib/format';
import { statusColumns } from '../parts/parts';
import { ReportTable, type Column } from '../parts/ReportTable';
import { ReportSection } from './ReportSection';
import type { ReportsSearch } from './search';

type Point = TrendReport['points'][number];

/**
 * The pass rate run by run (or day by day) as a table: the dashboard draws it, this is every number. By run,
 * milestone and configuration narrow the runs; the choices live in the address.
 */
export function TrendSection({
  code,
  last,
  search,
  statuses,
}: {
  code: string;
  last: number;
  search: ReportsSearch;
  statuses: StatusSetting[];
}) {
  const navigate = useNavigate({ from: '/project/$code/reports' });
  const by: 'run' | 'day' = search.by ?? 'run';
  const params = {
    by,
    last,
    ...(search.milestone ? { milestoneId: search.milestone } : {}),
    ...(search.config ? { configurationId: search.config } : {}),
  };
  const query = useQuery(trendQuery(code, params));
  const milestones = useQuery(milestonesQuery(code));
  const configurations = useQuery(configurationsQuery(code));
  const set = (patch: Partial<ReportsSearch>) =>
    void navigate({ search: (s) => ({ ...s, ...patch }), replace: true, resetScroll: false });
  const narrowed = search.milestone !== undefined || search.config !== undefined;
  const columns = (points: Point[]): Column<Point>[] => [
    by === 'run'
      ? {
          key: 'run',
          header: 'Run',
          cell: (p) => (
            <Link to="/project/$code/run/$runId/report" params={{ code, runId: p.key }}>
              {p.label}
            </Link>
          ),
          sortBy: (p) => Number(p.key),
          ascendingFirst: true,
        }
      : {
          key: 'day',
          header: 'Day (UTC)',
          cell: (p) => formatDay(p.key),
          sortBy: (p) => p.key,
          ascendingFirst: true,
        },
    ...statusColumns(
      statuses,
      points.map((p) => p.counts),
    ).map((s): Column<Point> => ({
      key: s.id,
      header: s.name,
      numeric: true,
      cell: (p) => formatCount(p.counts[s.id] ?? 0),
      sortBy: (p) => p.counts[s.id] ?? 0,
    })),
    {
      key: 'all',
      header: 'Cases',
      numeric: true,
      cell: (p) => formatCount(p.counts.all),
      sortBy: (p) => p.counts.all,
    },
    {
      key: 'rate',
      header: 'Pass rate',
      numeric: true,
      cell: (p) => formatPassRate(p.passRate),
      sortBy: (p) => p.passRate ?? -1,
    },
  ];
  return (
    <ReportSection
      id="trend"
      title="Pass rate trend"
      about={
        by === 'run'
          ? `The last ${formatCount(last)} runs, oldest first: passed ÷ (cases − open − skipped).`
          : `The last ${formatCount(last)} days with results (UTC), oldest first, each day's runs added up.`
      }
      csv={reportCsvUrl(`/project/${code}/report/trend`, params)}
      query={query}
      isEmpty={(d) => d.points.length === 0}
      empty={{
        title: narrowed ? 'No run matches these filters.' : 'No runs yet.',
        body: narrowed ? (
          <p>Choose “All” for the milestone and the configuration to see every run.</p>
        ) : (
          <p>
            <Link to="/project/$code/runs" params={{ code }}>
              Create a run
            </Link>{' '}
            (or upload results with the CLI): each run adds a row here.
          </p>
        ),
      }}
      controls={
        <div className="rep-controls no-print">
          <label className="field">
            <span className="field-label">Group by</span>
            <select
              className="field-input"
              value={by}
              onChange={(e) => set({ by: e.target.value === 'day' ? 'day' : undefined })}
            >
              <option value="run">Run</option>
              <option value="day">Day</option>
            </select>
          </label>
          <label className="field">
            <span className="field-label">Milestone</span>
            <select
              className="field-input"
              value={search.milestone ?? ''}
              onChange={(e) => set({ milestone: e.target.value ? Number(e.target.value) : undefined })}
            >
              <option value="">All</option>
              {(milestones.data?.milestones ?? []).map((m) => (
                <option key={m.id} value={m.id}>
                  {m.title}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span className="field-label">Configuration</span>
            <select
              className="field-input"
              value={search.config ?? ''}
              onChange={(e) => set({ config: e.target.value || undefined })}
            >
              <option value="">All</option>
              {(configurations.data?.configurations ?? []).map((c) => (
                <option key={c.id} value={c.id}>
                  {c.title}
                </option>
              ))}
            </select>
          </label>
        </div>
      }
    >
      {(d) => (
        <ReportTable
          caption={by === 'run' ? 'Pass rate by run' : 'Pass rate by day'}
          columns={columns(d.points)}
          rows={d.points}
          rowKey={(p) => p.key}
        />
      )}
    </ReportSection>
  );
}
