import './tcase.css';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { Button } from '../../components/Button';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { customFieldsQuery, filledCasesQuery, testCaseQuery, type Step, type TestCase } from './api';
import { Attachments } from './Attachments';
import { draftOf } from './draft';
import { EditSession } from './editor/EditSession';
import { VersionHistory } from './history/VersionHistory';
import { ResultHistory } from './history/ResultHistory';
import { isSingleKeyShortcut, openingEditor, useKeyDown } from '../../lib/keys';
import { SafeHtml } from '../../components/rich-text/SafeHtml';
import { formatCount, formatDateTime } from '../../lib/format';

/** HTML fields: sanitised by the service on write (D22) and again by SafeHtml when shown. */
const Html = SafeHtml;

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

/** A template's parameter rows and the filled cases made from them. */
function TemplateSection({ code, t }: { code: string; t: TestCase }) {
  const filled = useQuery(filledCasesQuery(code, t.id));
  const rows = t.parameterValues ?? [];
  const names = [...new Set(rows.flatMap((r) => Object.keys(r.values)))];
  const byId = new Map((filled.data?.data ?? []).map((f) => [f.id, f]));
  return (
    <section aria-labelledby="template" className="panel tcase-section">
      <h2 id="template" className="panel-title">
        Parameter rows and filled cases <span className="count">{formatCount(rows.length)}</span>
      </h2>
      {rows.length === 0 ? (
        <EmptyState title="No parameter rows yet.">
          <p>Edit the template (e) and add a row per combination; each row makes one filled case.</p>
        </EmptyState>
      ) : (
        <div className="param-table-wrap">
          <table className="param-table">
            <thead>
              <tr>
                {names.map((n) => (
                  <th key={n} scope="col">
                    {n}
                  </th>
                ))}
                <th scope="col">Filled case</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => {
                const f = byId.get(r.tcaseId);
                return (
                  <tr key={r.tcaseId || i}>
                    {names.map((n) => (
                      <td key={n}>{r.values[n] ?? ''}</td>
                    ))}
                    <td>
                      {f ? (
                        <Link to="/project/$code/tcase/$seq" params={{ code, seq: String(f.seq) }}>
                          {code.toUpperCase()}-{f.seq} {f.title}
                        </Link>
                      ) : filled.isPending ? (
                        <span className="muted">Loading…</span>
                      ) : (
                        <span className="muted">Not made yet</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function ReadView({ code, t, onEdit }: { code: string; t: TestCase; onEdit: () => void }) {
  const fields = useQuery(customFieldsQuery(code));
  const steps = t.steps ?? [];
  const precondition = t.precondition;
  const marker = `${code.toUpperCase()}-${t.seq}`;
  const fieldNames = new Map((fields.data?.customFields ?? []).map((f) => [f.systemName, f]));
  const shownFields = Object.entries(t.customFields ?? {}).filter(([, v]) => v.value !== '');
  return (
    <>
      <div className="page-header">
        <div>
          <p className="tcase-marker">
            <span className="project-code">{marker}</span>
            <span className="muted">Version {t.version}</span>
            {t.isDraft && <span className="badge">Draft</span>}
            {t.type === 'template' && <span className="badge">Template</span>}
            {t.type === 'filled' && t.templateTCaseId && (
              <Link to="/project/$code/tcase/$seq" params={{ code, seq: t.templateTCaseId }}>
                Filled from its template
              </Link>
            )}
          </p>
          <h1 className="page-title">{t.title}</h1>
        </div>
        <div className="page-actions">
          {/* A link: a copy is a new page (its own address, back returns here). */}
          <Link
            className="btn btn-secondary"
            to="/project/$code/tcase/new"
            params={{ code }}
            search={{ folder: t.folderId, copy: t.seq }}
            onClick={() => openingEditor()}
          >
            Duplicate
          </Link>
          <Button variant="primary" onPress={onEdit} aria-keyshortcuts="e">
            Edit <kbd aria-hidden="true">e</kbd>
          </Button>
        </div>
      </div>

      <dl className="facts">
        <div>
          <dt>Priority</dt>
          <dd className={`priority priority-${t.priority}`}>{t.priority}</dd>
        </div>
        <div>
          <dt>Folder</dt>
          <dd>{t.path?.at(-1)?.title ?? '—'}</dd>
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
            <time dateTime={t.updatedAt}>{formatDateTime(t.updatedAt)}</time>
          </dd>
        </div>
        {shownFields.map(([k, v]) => {
          const f = fieldNames.get(k);
          return (
            <div key={k}>
              <dt>{f?.name ?? k}</dt>
              <dd>
                {f?.type === 'richtext' ? (
                  <Html html={v.value} />
                ) : f?.type === 'checkbox' ? (
                  v.value === 'true' ? (
                    'Yes'
                  ) : (
                    'No'
                  )
                ) : (
                  v.value
                )}
                {v.isDefault && <span className="muted"> (default)</span>}
              </dd>
            </div>
          );
        })}
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
          Steps <span className="count">{formatCount(steps.length)}</span>
        </h2>
        {steps.length === 0 ? (
          <EmptyState title="No steps yet.">
            <p>Press Edit (or e) to add steps.</p>
          </EmptyState>
        ) : (
          <ol className="steps">
            {steps.map((step) => (
              <StepItem key={`${step.type}-${step.id}`} step={step} />
            ))}
          </ol>
        )}
      </section>

      {t.type === 'template' && <TemplateSection code={code} t={t} />}

      <section aria-labelledby="references" className="panel tcase-section">
        <h2 id="references" className="panel-title">
          Requirements and links
        </h2>
        {(t.requirements?.length ?? 0) + t.links.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
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
          </ul>
        )}
      </section>

      <section aria-labelledby="files" className="panel tcase-section">
        <h2 id="files" className="panel-title">
          Attachments <span className="count">{formatCount(t.files.length)}</span>
        </h2>
        <Attachments files={t.files} />
      </section>

      <ResultHistory code={code} id={t.id} seq={t.seq} />

      <VersionHistory key={t.version} code={code} id={t.id} current={t.version} />
    </>
  );
}

/** `/project/{CODE}/tcase/{seq}` (printed by the upload CLI): the test case, to read and to edit (`e`). */
export function TestCasePage() {
  const { code, seq } = useParams({ from: '/app/project/$code/tcase/$seq' });
  const navigate = useNavigate();
  const tcase = useQuery(testCaseQuery(code, seq));
  const [editing, setEditing] = useState(false);
  // The form's title takes the focus when it is there; keys typed until then are its text, not shortcuts.
  const edit = () => {
    openingEditor();
    setEditing(true);
  };
  const marker = `${code.toUpperCase()}-${tcase.data?.seq ?? seq}`;
  useDocumentTitle(tcase.data ? `${editing ? 'Editing ' : ''}${marker} ${tcase.data.title}` : marker);

  useKeyDown((e) => {
    if (editing || !tcase.data || !isSingleKeyShortcut(e)) return;
    if (e.key === 'e') {
      e.preventDefault();
      edit();
    } else if (e.key === 'n') {
      e.preventDefault();
      openingEditor();
      void navigate({
        to: '/project/$code/tcase/new',
        params: { code },
        search: { folder: tcase.data.folderId },
      });
    }
  });

  if (tcase.isPending) return <Loading label={`Loading ${marker}…`} />;
  if (tcase.isError)
    return (
      <div className="page">
        <ErrorState
          title={`Test case ${marker} could not be opened.`}
          error={tcase.error}
          onRetry={() => tcase.refetch()}
        >
          <Link to="/project/$code/repository" params={{ code }}>
            The repository of {code.toUpperCase()}
          </Link>
          <Link to="/">All projects</Link>
        </ErrorState>
      </div>
    );

  const t = tcase.data;
  return (
    <div className="page page-narrow">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/project/$code/repository" params={{ code }}>
          Test cases
        </Link>
        {(t.path ?? []).map((f) => (
          <span key={f.id} className="breadcrumb-part">
            <span aria-hidden="true">/</span> {f.title}
          </span>
        ))}
      </nav>
      {editing ? (
        <EditSession
          code={code}
          initial={draftOf(t)}
          target={{ kind: 'edit', id: t.id, version: t.version }}
          heading={`Edit ${marker}`}
          onSaved={() => setEditing(false)}
          onCancel={() => {
            setEditing(false);
            void tcase.refetch();
          }}
        />
      ) : (
        <ReadView code={code} t={t} onEdit={edit} />
      )}
    </div>
  );
}
