import type { StatusSetting } from '../../../api/statuses';
import type { PlanReport } from '../api';
import { formatCount } from '../../../lib/format';
import { Summary } from '../parts/parts';
import { RunsTable, type RunLink } from '../parts/RunsTable';
import '../parts/report-pages.css';
import '../print.css';

/**
 * A test plan's report from its data alone (the signed-in page and a shared link render it alike): the plan's
 * counts and pass rate, then each run's. `runLink` makes run titles links (absent when shared).
 */
export function PlanReportView({
  data,
  statuses,
  runLink,
  titled = false,
}: {
  data: PlanReport;
  statuses: StatusSetting[];
  runLink?: RunLink;
  /** A page of its own (a shared link) names the report; the signed-in page's frame does that already. */
  titled?: boolean;
}) {
  return (
    <div className="rep-view report">
      {titled && <h1 className="page-title">{data.plan.title}: test plan report</h1>}
      <section className="panel rep-section" aria-labelledby="plan-summary">
        <h2 id="plan-summary" className="panel-title">
          Summary
        </h2>
        <Summary counts={data.counts} passRate={data.passRate} statuses={statuses}>
          <div className="rep-stat">
            <dt>Runs</dt>
            <dd>{formatCount(data.runs.length)}</dd>
          </div>
        </Summary>
      </section>
      <section className="panel rep-section" aria-labelledby="plan-runs">
        <h2 id="plan-runs" className="panel-title">
          Runs <span className="count">{formatCount(data.runs.length)}</span>
        </h2>
        {data.runs.length === 0 ? (
          <p className="muted">This plan has no run.</p>
        ) : (
          <RunsTable caption="Runs of the plan" runs={data.runs} statuses={statuses} runLink={runLink} />
        )}
      </section>
    </div>
  );
}
