import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { testCaseQuery, type Step } from './api';

/** HTML fields are sanitised by the service on write with one allow-list (D22). */
const Html = ({ html, className = 'prose' }: { html: string; className?: string }) => (
  <div className={className} dangerouslySetInnerHTML={{ __html: html }} />
);

function StepItem({ step }: { step: Step }) {
  if (step.type === 'shared') {
    return (
      <li className="step step-shared">
        <p className="step-shared-title">
          <span className="badge">Shared step</span> {step.title}
          {!step.isLatest && <span className="muted"> · version {step.version}</span>}
        </p>
        <ol className="substeps">
          {(step.subSteps ?? []).map((sub) => (
            <li key={sub.id} className="step-body">
              <Html html={sub.description} />
              {sub.expected && (
                <div className="step-expected">
                  <span className="step-label">Expected</span>
                  <Html html={sub.expected} />
                </div>
              )}
            </li>
          ))}
        </ol>
      </li>
    );
  }
  return (
    <li className="step">
      <div className="step-body">
        <Html html={step.description ?? ''} />
        {step.expected && (
          <div className="step-expected">
            <span className="step-label">Expected</span>
            <Html html={step.expected} />
          </div>
        )}
      </div>
    </li>
  );
}

/** `/project/{CODE}/tcase/{seq}` (printed by the upload CLI): the test case as it is now, to read. */
export function TestCasePage() {
  const { code, seq } = useParams({ from: '/app/project/$code/tcase/$seq' });
  const tcase = useQuery(testCaseQuery(code, seq));
  const marker = `${code.toUpperCase()}-${tcase.data?.seq ?? seq}`;
  useDocumentTitle(tcase.data ? `${marker} ${tcase.data.title}` : marker);

  if (tcase.isPending) return <Loading label={`Loading ${marker}…`} />;
  if (tcase.isError)
    return (
      <div className="page">
        <ErrorState
          title={`Test case ${marker} could not be opened.`}
          error={tcase.error}
          onRetry={() => tcase.refetch()}
        />
      </div>
    );

  const t = tcase.data;
  const steps = t.steps ?? [];
  const precondition = t.precondition;
  return (
    <div className="page page-narrow">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/">Projects</Link>
        <span aria-hidden="true">/</span>
        <Link to="/project/$code" params={{ code }}>
          {code.toUpperCase()}
        </Link>
        {(t.path ?? []).map((f) => (
          <span key={f.id} className="breadcrumb-part">
            <span aria-hidden="true">/</span> {f.title}
          </span>
        ))}
      </nav>
      <div className="page-header">
        <div>
          <p className="tcase-marker">
            <span className="project-code">{marker}</span>
            <span className="muted">Version {t.version}</span>
            {t.isDraft && <span className="badge">Draft</span>}
            {t.type === 'template' && <span className="badge">Template</span>}
          </p>
          <h1 className="page-title">{t.title}</h1>
        </div>
      </div>

      <dl className="facts">
        <div>
          <dt>Priority</dt>
          <dd className={`priority priority-${t.priority}`}>{t.priority}</dd>
        </div>
        <div>
          <dt>Tags</dt>
          <dd>
            {t.tags && t.tags.length > 0 ? (
              <ul className="chips">
                {t.tags.map((tag) => (
                  <li key={tag.id} className="chip">
                    {tag.title}
                  </li>
                ))}
              </ul>
            ) : (
              <span className="muted">None</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <time dateTime={t.updatedAt}>{new Date(t.updatedAt).toLocaleString()}</time>
          </dd>
        </div>
      </dl>

      <section aria-labelledby="precondition" className="panel tcase-section">
        <h2 id="precondition" className="panel-title">
          Precondition
          {precondition?.type === 'shared' && <span className="badge">Shared: {precondition.title}</span>}
        </h2>
        {precondition?.text ? <Html html={precondition.text} /> : <p className="muted">No precondition.</p>}
      </section>

      <section aria-labelledby="steps" className="panel tcase-section">
        <h2 id="steps" className="panel-title">
          Steps <span className="count">{steps.length}</span>
        </h2>
        {steps.length === 0 ? (
          <EmptyState title="No steps yet." />
        ) : (
          <ol className="steps">
            {steps.map((step) => (
              <StepItem key={`${step.type}-${step.id}`} step={step} />
            ))}
          </ol>
        )}
      </section>

      {(t.requirements?.length ?? 0) + t.links.length + t.files.length > 0 && (
        <section aria-labelledby="references" className="panel tcase-section">
          <h2 id="references" className="panel-title">
            Requirements, links and files
          </h2>
          <ul className="link-list">
            {(t.requirements ?? []).map((r) => (
              <li key={`r-${r.id}`}>
                Requirement:{' '}
                {r.url ? (
                  <a href={r.url} target="_blank" rel="noreferrer noopener">
                    {r.text || r.url}
                  </a>
                ) : (
                  r.text
                )}
              </li>
            ))}
            {t.links.map((l) => (
              <li key={`l-${l.url}`}>
                <a href={l.url} target="_blank" rel="noreferrer noopener">
                  {l.text || l.url}
                </a>
              </li>
            ))}
            {t.files.map((f) => (
              <li key={`f-${f.id}`}>
                <a href={f.url} download={f.fileName}>
                  {f.fileName}
                </a>{' '}
                <span className="muted">({Math.max(1, Math.round(f.size / 1024))} KB)</span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
