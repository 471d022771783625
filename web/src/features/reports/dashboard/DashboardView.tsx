import { Link } from '@tanstack/react-router';
import type { Run } from '../../../api/queries';
import type { StatusSetting } from '../../../api/statuses';
import type { DashboardData, MilestoneReport } from '../api';
import { CoveragePanel, DefectsPanel } from './CoveragePanels';
import { formatCount, formatPassRate } from '../../../lib/format';
import { FoldersPanel, TopPanels } from './ListPanels';
import { MilestonesPanel, OpenRunsPanel } from './ProgressPanels';
import { TrendPanel } from './TrendPanel';
import './dashboard.css';
import '../../../components/run-lists/runs-list.css';

export interface DashboardViewProps {
  code: string;
  /** The dashboard's reports; one not loaded yet is missing (its panel says it is loading). */
  data: Partial<DashboardData>;
  statuses: StatusSetting[];
  /**
   * Signed in: links to cases, runs and the reports page, the open runs and the milestones. A shared page passes
   * false and shows the reports alone, pointing at nothing that needs a session.
   */
  linked: boolean;
  trendBy?: 'run' | 'day';
  /** Given: the trend can be switched between by run and by day. */
  onTrendBy?: (by: 'run' | 'day') => void;
  openRuns?: Run[];
  milestones?: { total: number; milestones: MilestoneReport[] };
  /** The project's test cases, when known. */
  caseCount?: number;
}

/** The project dashboard: where quality stands, from the reports of the last 20 runs (extensions.md §6). */
export function DashboardView(props: DashboardViewProps) {
  const { code, data, statuses, linked, trendBy = 'run' } = props;
  return (
    <div className="dash-grid">
      <TrendPanel
        trend={data.trend}
        by={trendBy}
        onBy={props.onTrendBy}
        statuses={statuses}
        empty={
          <p>
            Record results in a run to see the trend here.
            {linked && (
              <>
                {' '}
                <Link to="/project/$code/runs" params={{ code }}>
                  Go to the runs
                </Link>
              </>
            )}
          </p>
        }
      />
      <Glance {...props} />
      {linked && (
        <>
          <OpenRunsPanel code={code} runs={props.openRuns} statuses={statuses} />
          <MilestonesPanel code={code} progress={props.milestones} statuses={statuses} />
        </>
      )}
      <FoldersPanel code={code} linked={linked} statuses={statuses} folders={data.folders} />
      <TopPanels code={code} linked={linked} statuses={statuses} data={data} />
      <CoveragePanel code={code} linked={linked} statuses={statuses} coverage={data.coverage} />
      <DefectsPanel code={code} linked={linked} defects={data.defects} />
    </div>
  );
}

/** The figures a lead looks at first: the newest pass rate, and how many cases fail or flip. */
function Glance({ data, openRuns, caseCount, trendBy = 'run' }: DashboardViewProps) {
  const points = data.trend?.points ?? [];
  const latest = [...points].reverse().find((p) => p.passRate !== null);
  const figure = (n: number | undefined, cap = false) =>
    n === undefined ? '…' : `${formatCount(n)}${cap && n >= 100 ? '+' : ''}`;
  return (
    <section aria-labelledby="dash-glance" className="panel dash-panel dash-span-2">
      <h2 id="dash-glance" className="panel-title">
        At a glance
      </h2>
      <dl className="stats">
        <div className="stat stat-wide">
          <dt>Pass rate, {trendBy === 'run' ? 'latest run' : 'latest day'}</dt>
          <dd data-testid="latest-pass-rate">
            {data.trend ? formatPassRate(latest?.passRate ?? null, 'whole') : '…'}
          </dd>
        </div>
        {caseCount !== undefined && (
          <div className="stat">
            <dt>Test cases</dt>
            <dd>{formatCount(caseCount)}</dd>
          </div>
        )}
        {openRuns !== undefined && (
          <div className="stat">
            <dt>Open runs</dt>
            <dd>{formatCount(openRuns.length)}</dd>
          </div>
        )}
        <div className="stat">
          <dt>Failing cases</dt>
          <dd>{figure(data.failing?.tcases.length, true)}</dd>
        </div>
        <div className="stat">
          <dt>Flaky cases</dt>
          <dd>{figure(data.flaky?.tcases.length, true)}</dd>
        </div>
      </dl>
      <p className="muted dash-note">Failing and flaky: in the last 20 runs.</p>
    </section>
  );
}
