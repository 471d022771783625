import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { ErrorState, Loading } from '../../../components/Status';
import { caseHistoryQuery, runTcaseQuery } from '../api';
import { type StatusId, type StatusSetting } from '../../../api/statuses';
import { elapsed, Recorder } from './Recorder';
import type { DraftProblem, DraftUpdate, RecorderDraft } from './recorder-draft';
import { STATUS_FILL } from '../../../api/statuses';
import { SafeHtml } from '../../../components/rich-text/SafeHtml';
import { formatDate, formatDateTime } from '../../../lib/format';
import { FailureSuggestions } from '../../triage';
import { ResultFiles } from './ResultFiles';

const Html = SafeHtml;

/** The selected case: what to do (precondition, steps), what happened (results here and elsewhere), and the recorder. */
export function CasePanel({
  code,
  runId,
  tcaseId,
  closed,
  statuses,
  draft,
  onDraft,
  onRecord,
  startedAt,
  checkedCount,
  problem,
}: {
  code: string;
  runId: number;
  tcaseId: string;
  closed: boolean;
  statuses: StatusSetting[];
  draft: RecorderDraft;
  onDraft: DraftUpdate;
  onRecord: (status: StatusId) => void;
  startedAt: number;
  checkedCount: number;
  problem: DraftProblem | undefined;
}) {
  const detail = useQuery(runTcaseQuery(code, runId, tcaseId));
  const history = useQuery(caseHistoryQuery(code, tcaseId));
  const byId = new Map(statuses.map((s) => [s.id as string, s]));
  if (detail.isPending) return <Loading label="Loading the test case…" />;
  if (detail.isError)
    return (
      <ErrorState
        title="This test case could not be loaded."
        error={detail.error}
        onRetry={() => detail.refetch()}
      />
    );
  const d = detail.data;
  const others = (history.data?.results ?? []).filter((r) => r.run.id !== runId).slice(0, 5);
  const project = code.toUpperCase();
  return (
    <article className="run-panel" aria-labelledby="run-panel-title">
      <header className="run-panel-head">
        <span className="project-code">
          {project}-{d.seq}
        </span>
        <h2 id="run-panel-title" className="run-panel-title">
          {d.title}
        </h2>
        <div className="run-panel-meta muted">
          <span className={`priority priority-${d.priority}`}>{d.priority}</span>
          {d.tags.map((t) => (
            <span key={t.id} className="tag">
              {t.title}
            </span>
          ))}
          <Link
            to="/project/$code/tcase/$seq"
            params={{ code: project, seq: String(d.seq) }}
            className="run-panel-open"
          >
            Open the test case
          </Link>
        </div>
      </header>

      {!closed && (
        <Recorder
          // One recorder per case visit: an opened comment editor never follows the tester to the next case.
          key={`${tcaseId}-${startedAt}`}
          code={code}
          tcaseId={tcaseId}
          statuses={statuses}
          draft={draft}
          onDraft={onDraft}
          onRecord={onRecord}
          startedAt={startedAt}
          checkedCount={checkedCount}
          problem={problem}
        />
      )}

      {d.comment && (
        <section aria-labelledby="pre-title">
          <h3 id="pre-title" className="section-title">
            Precondition
          </h3>
          <Html html={d.comment} />
        </section>
      )}
      {d.steps.length > 0 && (
        <section aria-labelledby="steps-title">
          <h3 id="steps-title" className="section-title">
            Steps
          </h3>
          <ol className="run-steps">
            {d.steps.map((s) => (
              <li key={s.id}>
                {s.title && <strong>{s.title}</strong>}
                {s.description && <Html html={s.description} />}
                {s.expected && (
                  <div className="run-step-expected">
                    <span className="muted">Expected</span>
                    <Html html={s.expected} />
                  </div>
                )}
                {s.subSteps && (
                  <ol>
                    {s.subSteps.map((sub, i) => (
                      <li key={i}>
                        {sub.description && <Html html={sub.description} />}
                        {sub.expected && <Html html={sub.expected} className="prose muted" />}
                      </li>
                    ))}
                  </ol>
                )}
              </li>
            ))}
          </ol>
        </section>
      )}
      {d.files.length > 0 && (
        <section aria-labelledby="files-title">
          <h3 id="files-title" className="section-title">
            Attachments
          </h3>
          <ul className="run-files">
            {d.files.map((f) => (
              <li key={f.id}>
                <a href={f.url} target="_blank" rel="noreferrer">
                  {f.fileName}
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}

      <section aria-labelledby="here-title">
        <h3 id="here-title" className="section-title">
          Results in this run
        </h3>
        {/* Defects linked before to failures like the latest result: shown, never linked without Accept. */}
        {d.results.length > 0 && (
          <FailureSuggestions code={project} runId={runId} result={d.results[d.results.length - 1]} />
        )}
        {d.results.length === 0 ? (
          <p className="muted">No result yet.</p>
        ) : (
          <ol className="run-results" reversed>
            {[...d.results].reverse().map((r) => (
              <li key={r.id}>
                <span className="run-case-status">
                  <span
                    className="status-dot"
                    aria-hidden="true"
                    style={{ background: STATUS_FILL[byId.get(r.status)?.color ?? 'gray'] }}
                  />
                  {byId.get(r.status)?.name ?? r.status}
                </span>{' '}
                <span className="muted">
                  {r.author?.name ?? 'someone'} · {formatDateTime(r.createdAt)}
                  {r.timeTaken ? ` · ${elapsed(r.timeTaken)}` : ''}
                </span>
                {r.comment && <Html html={r.comment} />}
                {r.links.length > 0 && (
                  <ul className="run-links">
                    {r.links.map((l) => (
                      <li key={l.id}>
                        <a href={l.url} target="_blank" rel="noreferrer">
                          {l.text}
                        </a>
                        {l.comment && <span className="muted"> · tracker comment {l.comment.status}</span>}
                      </li>
                    ))}
                  </ul>
                )}
                <ResultFiles files={r.files} />
              </li>
            ))}
          </ol>
        )}
      </section>
      <section aria-labelledby="else-title">
        <h3 id="else-title" className="section-title">
          Latest results in other runs
        </h3>
        {history.isPending ? (
          <p className="muted">Loading…</p>
        ) : others.length === 0 ? (
          <p className="muted">Not run elsewhere yet.</p>
        ) : (
          <ul className="run-results">
            {others.map((r) => (
              <li key={r.id}>
                <span className="run-case-status">{byId.get(r.status)?.name ?? r.status}</span>{' '}
                <span className="muted">
                  in “{r.run.title}” · {formatDate(r.createdAt)}
                </span>
                <ResultFiles files={r.files} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </article>
  );
}
