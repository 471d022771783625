import type { StatusSetting } from '../../../api/statuses';
import { Loading } from '../../../components/Status';
import type { DashboardData } from '../api';
import { ChartPanel, DataTable } from './ChartPanel';
import { formatCount, formatDate } from '../../../lib/format';
import { countsText } from './chart';
import { caseRef, CaseLink, FullListLink } from './links';
import { StackedBar } from './StackedBar';

const REQUIREMENTS = 8;
const DEFECTS = 6;

/** Requirement coverage: how many requirements have cases, and each one's cases by their latest status. */
export function CoveragePanel({
  code,
  linked,
  statuses,
  coverage,
}: {
  code: string;
  linked: boolean;
  statuses: StatusSetting[];
  coverage: DashboardData['coverage'] | undefined;
}) {
  const all = coverage?.requirements ?? [];
  const covered = all.filter((r) => r.tcases.length > 0).length;
  // Requirements without a case first: they are what needs doing.
  const shown = [...all]
    .sort((a, b) => Number(a.tcases.length > 0) - Number(b.tcases.length > 0))
    .slice(0, REQUIREMENTS);
  return (
    <ChartPanel
      id="dash-coverage"
      title="Requirement coverage"
      className="dash-span-3"
      chart={
        coverage === undefined ? (
          <Loading label="Loading the coverage…" />
        ) : all.length === 0 ? (
          <p className="muted dash-note">
            No requirements yet. Link test cases to requirements in their editor to see coverage here.
            {coverage.uncovered > 0 && ` ${formatCount(coverage.uncovered)} test cases cover none.`}
          </p>
        ) : (
          <>
            <p className="dash-note">
              <strong>{formatCount(covered)}</strong> of {formatCount(all.length)} requirements covered ·{' '}
              <strong>{formatCount(all.length - covered)}</strong> not covered ·{' '}
              {formatCount(coverage.uncovered)} test cases cover none
            </p>
            <ul className="dash-progress-list" aria-label="Requirements">
              {shown.map((r) => (
                <li key={r.id}>
                  <div className="dash-progress-head">
                    {r.url ? (
                      <a href={r.url} target="_blank" rel="noreferrer noopener">
                        {r.text || r.url}
                      </a>
                    ) : (
                      <span>{r.text}</span>
                    )}
                    <span className="muted">
                      {r.tcases.length === 0 ? 'not covered' : `${formatCount(r.tcases.length)} cases`}
                    </span>
                  </div>
                  <StackedBar counts={r.counts} statuses={statuses} label={r.text || r.url} />
                </li>
              ))}
            </ul>
          </>
        )
      }
      table={
        all.length === 0 ? null : (
          <DataTable
            caption="Requirements with their cases' latest status"
            columns={['Requirement', 'Cases', 'Latest statuses']}
            rows={all.map((r) => ({
              key: r.id,
              head: r.text || r.url,
              cells: [
                formatCount(r.tcases.length),
                r.tcases.length ? countsText(r.counts, statuses) : 'not covered',
              ],
            }))}
          />
        )
      }
      footer={
        linked &&
        all.length > shown.length && (
          <FullListLink
            code={code}
            section="coverage"
            label={`All ${formatCount(all.length)} requirements`}
          />
        )
      }
    />
  );
}

/** Defects linked from results of the last runs, most recently seen first. */
export function DefectsPanel({
  code,
  linked,
  defects,
}: {
  code: string;
  linked: boolean;
  defects: DashboardData['defects'] | undefined;
}) {
  const list = (defects?.defects ?? []).slice(0, DEFECTS);
  return (
    <section aria-labelledby="dash-defects" className="panel dash-panel dash-span-3">
      <div className="dash-panel-head">
        <h2 id="dash-defects" className="panel-title">
          Recent defects
        </h2>
      </div>
      {defects === undefined ? (
        <Loading label="Loading the defects…" />
      ) : list.length === 0 ? (
        <p className="muted dash-note">
          No result of the last 20 runs links a defect. Add an issue link when recording a failure.
        </p>
      ) : (
        <ul className="dash-defects" aria-label="Recent defects">
          {list.map((d) => (
            <li key={d.url}>
              <a href={d.url} target="_blank" rel="noreferrer noopener" className="dash-strong">
                {d.text || d.url}
              </a>
              <span className="muted dash-url">{d.url}</span>
              <span className="muted">
                {d.tcases.map((seq, i) => (
                  <span key={seq}>
                    {i > 0 && ', '}
                    <CaseLink code={code} seq={seq} linked={linked}>
                      {caseRef(code, seq)}
                    </CaseLink>
                  </span>
                ))}{' '}
                · last seen {formatDate(d.lastAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
      {linked && list.length > 0 && <FullListLink code={code} section="defects" label="All defects" />}
    </section>
  );
}
