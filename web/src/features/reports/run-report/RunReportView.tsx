import type { ReactNode } from 'react';
import { Link } from '@tanstack/react-router';
import { STATUS_FILL, type StatusSetting } from '../../../api/statuses';
import { SafeHtml } from '../../../components/rich-text/SafeHtml';
import type { RunReport } from '../api';
import { formatCount, formatDateTime, formatDuration, formatPassRate } from '../../../lib/format';
import '../print.css';
import './run-report.css';
import { FolderPath } from '../../../components/FolderPath';

type Counts = RunReport['counts'];

export interface RunReportViewProps {
  data: RunReport;
  project: { code: string; title: string };
  statuses: StatusSetting[];
  /** Signed in, a case links to its page; a shared page links nowhere inside the application. */
  linkCases?: boolean;
  /** Whether the compared run was chosen (`since=`) rather than found by the default rule of §6. */
  sinceChosen?: boolean;
  /** The compared run's picker (signed in only), beside the comparison; never printed. */
  compareControl?: ReactNode;
  /** The page's actions (share, CSV, print), under the title; never printed. */
  actions?: ReactNode;
  /** The failures grouped by signature (triage), read with a session: a shared link's page has none. */
  failureGroups?: ReactNode;
}

const count = (c: Counts, id: string) => (c as Record<string, number>)[id] ?? 0;

/**
 * A run's report from its data alone, so the signed-in page and the public shared page show the same thing:
 * counts with pass rate and time spent, folders with whole paths, failures with their comments and links, and
 * what changed since an earlier run.
 */
export function RunReportView({
  data,
  project,
  statuses,
  linkCases = false,
  sinceChosen = false,
  compareControl,
  actions,
  failureGroups,
}: RunReportViewProps) {
  const { run, counts, since } = data;
  const code = project.code.toUpperCase();
  // The tenant's statuses that can be recorded now, and any other this run still holds.
  const shown = statuses.filter((s) => s.isActive || s.isDefault || count(counts, s.id) > 0);
  const inRun = shown.filter((s) => count(counts, s.id) > 0);
  const nameOf = new Map(statuses.map((s) => [s.id as string, s]));
  const caseRef = (seq: number, title: string) => {
    const text = `${code}-${seq} ${title}`;
    return linkCases ? (
      <Link to="/project/$code/tcase/$seq" params={{ code, seq: String(seq) }}>
        {text}
      </Link>
    ) : (
      text
    );
  };
  const titleOf = new Map(data.failures.map((f) => [f.seq, f.title]));
  const done = counts.all - counts.open;

  return (
    <article className="report run-report" aria-labelledby="report-title">
      <header className="report-header">
        <p className="report-kind">Run report · {project.title}</p>
        <h1 id="report-title" className="page-title">
          {run.title}
          {run.closed ? (
            <span className="badge">Closed</span>
          ) : (
            <span className="badge badge-open">Open</span>
          )}
        </h1>
        <p className="page-subtitle">
          Run {run.id} of {code} · created {formatDateTime(run.createdAt)}
          {run.closedAt ? ` · closed ${formatDateTime(run.closedAt)}` : ''}
          <span className="print-only"> · printed {formatDateTime(new Date().toISOString())}</span>
        </p>
        {actions && <div className="report-actions no-print">{actions}</div>}
      </header>

      <section aria-labelledby="summary-title" className="panel report-section">
        <h2 id="summary-title" className="panel-title">
          Summary
        </h2>
        <div
          className="status-bar report-bar"
          role="img"
          aria-label={`${formatCount(done)} of ${formatCount(counts.all)} done${inRun.length ? `: ${inRun.map((s) => `${formatCount(count(counts, s.id))} ${s.name}`).join(', ')}` : ''}`}
        >
          {inRun.map((s) => (
            <span
              key={s.id}
              className="status-bar-part"
              style={{ flexGrow: count(counts, s.id), background: STATUS_FILL[s.color] }}
            />
          ))}
        </div>
        <dl className="report-stats">
          <div className="report-stat report-stat-main">
            <dt>Pass rate</dt>
            <dd data-testid="pass-rate">{formatPassRate(data.passRate)}</dd>
          </div>
          <div className="report-stat">
            <dt>Cases</dt>
            <dd data-testid="count-all">{formatCount(counts.all)}</dd>
          </div>
          {shown.map((s) => (
            <div key={s.id} className="report-stat">
              <dt>
                <span
                  className="status-dot"
                  aria-hidden="true"
                  style={{ background: STATUS_FILL[s.color] }}
                />
                {s.name}
              </dt>
              <dd data-testid={`count-${s.id}`}>{formatCount(count(counts, s.id))}</dd>
            </div>
          ))}
          <div className="report-stat">
            <dt>Time spent</dt>
            <dd data-testid="time-spent">{formatDuration(data.timeSpent)}</dd>
          </div>
        </dl>
        <p className="muted report-note">Pass rate: passed of the cases with a result other than skipped.</p>
      </section>

      <section aria-labelledby="since-title" className="panel report-section">
        <h2 id="since-title" className="panel-title">
          Since an earlier run
        </h2>
        {since ? (
          <p data-testid="compared-with">
            Compared with <strong>{since.title}</strong> (run {since.runId})
            {sinceChosen ? ', chosen for this report.' : ', the comparable earlier run.'}
          </p>
        ) : (
          <p data-testid="compared-with">No earlier run to compare with.</p>
        )}
        {compareControl && <div className="no-print report-compare">{compareControl}</div>}
        {since && (
          <div className="report-changes">
            <div>
              <h3 className="panel-subtitle">New failures ({formatCount(since.newFailures.length)})</h3>
              {since.newFailures.length === 0 ? (
                <p className="muted">None: nothing fails here that did not fail there.</p>
              ) : (
                <ul className="report-cases" aria-label="New failures">
                  {since.newFailures.map((seq) => (
                    <li key={seq}>{caseRef(seq, titleOf.get(seq) ?? '')}</li>
                  ))}
                </ul>
              )}
            </div>
            <div>
              <h3 className="panel-subtitle">Fixed ({formatCount(since.fixedCases.length)})</h3>
              {since.fixedCases.length === 0 ? (
                <p className="muted">None: no case that failed there passed here.</p>
              ) : (
                <ul className="report-cases" aria-label="Fixed">
                  {since.fixedCases.map((c) => (
                    <li key={c.seq}>{caseRef(c.seq, c.title)}</li>
                  ))}
                </ul>
              )}
            </div>
          </div>
        )}
      </section>

      <section aria-labelledby="folders-title" className="panel report-section">
        <h2 id="folders-title" className="panel-title">
          By folder
        </h2>
        {data.folders.length === 0 ? (
          <p className="muted">This run has no test cases.</p>
        ) : (
          <div className="table-scroll" role="region" aria-labelledby="folders-title" tabIndex={0}>
            <table className="report-table">
              <thead>
                <tr>
                  <th scope="col">Folder</th>
                  {inRun.map((s) => (
                    <th key={s.id} scope="col" className="num">
                      {s.name}
                    </th>
                  ))}
                  <th scope="col" className="num">
                    Total
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.folders.map((f) => (
                  <tr key={f.path.join('\u0000')}>
                    <th scope="row" className="report-folder">
                      <FolderPath path={f.path} max={60} />
                    </th>
                    {inRun.map((s) => (
                      <td key={s.id} className="num">
                        {formatCount(count(f.counts, s.id))}
                      </td>
                    ))}
                    <td className="num">{formatCount(f.counts.all)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      {failureGroups}

      <section aria-labelledby="failures-title" className="panel report-section">
        <h2 id="failures-title" className="panel-title">
          Failures <span className="count">{formatCount(data.failures.length)}</span>
        </h2>
        {data.failures.length === 0 ? (
          <p className="muted">No case of this run is failed or blocked.</p>
        ) : (
          <ol className="report-failures">
            {data.failures.map((f) => {
              const status = nameOf.get(f.status);
              return (
                <li key={f.tcaseId} className="report-failure">
                  <div className="report-failure-head">
                    <span className="report-status">
                      <span
                        className="status-dot"
                        aria-hidden="true"
                        style={{ background: STATUS_FILL[status?.color ?? 'red'] }}
                      />
                      {status?.name ?? f.status}
                    </span>
                    <span className="report-failure-title">{caseRef(f.seq, f.title)}</span>
                  </div>
                  <p className="muted report-failure-meta">
                    <FolderPath path={f.folderPath} max={60} />
                    {f.author ? ` · ${f.author.name}` : ''}
                    {f.at ? ` · ${formatDateTime(f.at)}` : ''}
                  </p>
                  {f.comment && <SafeHtml className="prose report-comment" html={f.comment} />}
                  {f.links.length > 0 && (
                    <ul className="report-links" aria-label={`Links of ${code}-${f.seq}`}>
                      {f.links.map((l) => (
                        <li key={l.url}>
                          <a href={l.url} target="_blank" rel="noopener noreferrer">
                            {l.text || l.url}
                          </a>
                          <span className="print-only"> ({l.url})</span>
                        </li>
                      ))}
                    </ul>
                  )}
                </li>
              );
            })}
          </ol>
        )}
      </section>
    </article>
  );
}
