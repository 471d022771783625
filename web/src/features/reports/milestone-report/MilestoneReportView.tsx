import type { StatusSetting } from '../../../api/statuses';
import type { MilestoneReport } from '../api';
import { formatCount, formatDay, formatPassRate } from '../../../lib/format';
import { statusColumns, Summary, type Counts } from '../parts/parts';
import { ReportTable, type Column } from '../parts/ReportTable';
import { RunsTable, type RunLink } from '../parts/RunsTable';
import { DayChart } from './DayChart';
import '../parts/report-pages.css';
import '../print.css';

type Point = MilestoneReport['points'][number];

/** §6's pass rate of one day: passed ÷ (all − open − skipped). */
function passRate(c: Counts): number | null {
  const counted = (c.all ?? 0) - (c.open ?? 0) - (c.skipped ?? 0);
  return counted > 0 ? (c.passed ?? 0) / counted : null;
}

/**
 * A milestone's report from its data alone (the signed-in page and a shared link render it alike): the
 * headline counts and pass rate, its runs, and its days. `runLink` makes run titles links (absent when shared).
 */
export function MilestoneReportView({
  data,
  statuses,
  runLink,
  titled = false,
}: {
  data: MilestoneReport;
  statuses: StatusSetting[];
  runLink?: RunLink;
  /** A page of its own (a shared link) names the report; the signed-in page's frame does that already. */
  titled?: boolean;
}) {
  const dayColumns: Column<Point>[] = [
    { key: 'date', header: 'Day', cell: (p) => formatDay(p.date), sortBy: (p) => p.date },
    ...statusColumns(
      statuses,
      data.points.map((p) => p.counts),
    ).map((s): Column<Point> => ({
      key: s.id,
      header: s.name,
      numeric: true,
      cell: (p) => formatCount(p.counts[s.id] ?? 0),
    })),
    { key: 'all', header: 'Cases', numeric: true, cell: (p) => formatCount(p.counts.all ?? 0) },
    { key: 'rate', header: 'Pass rate', numeric: true, cell: (p) => formatPassRate(passRate(p.counts)) },
  ];
  return (
    <div className="rep-view report">
      {titled && <h1 className="page-title">{data.milestone.title}: milestone report</h1>}
      <section className="panel rep-section" aria-labelledby="ms-summary">
        <h2 id="ms-summary" className="panel-title">
          Summary
        </h2>
        <Summary counts={data.counts} passRate={data.passRate} statuses={statuses}>
          <div className="rep-stat">
            <dt>Runs</dt>
            <dd>{formatCount(data.runs.length)}</dd>
          </div>
        </Summary>
      </section>
      <section className="panel rep-section" aria-labelledby="ms-runs">
        <h2 id="ms-runs" className="panel-title">
          Runs <span className="count">{formatCount(data.runs.length)}</span>
        </h2>
        {data.runs.length === 0 ? (
          <p className="muted">
            No run belongs to this milestone yet. Choose it as a run&apos;s milestone to count it here.
          </p>
        ) : (
          <RunsTable caption="Runs of the milestone" runs={data.runs} statuses={statuses} runLink={runLink} />
        )}
      </section>
      <section className="panel rep-section" aria-labelledby="ms-days">
        <h2 id="ms-days" className="panel-title">
          Day by day
        </h2>
        {data.points.length === 0 ? (
          <p className="muted">
            No results yet: the days appear once the milestone&apos;s runs have results.
          </p>
        ) : (
          <>
            <p className="muted rep-note">Cases of the runs created each day (UTC), by their status now.</p>
            <DayChart points={data.points} statuses={statuses} />
            <ReportTable
              caption="Cases per day"
              columns={dayColumns}
              rows={data.points}
              rowKey={(p) => p.date}
            />
          </>
        )}
      </section>
    </div>
  );
}
