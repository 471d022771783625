import { useEffect, useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { isApiError } from '../../../api/client';
import { uploadFile } from '../../../api/files';
import { Button } from '../../../components/Button';
import { RichTextField } from '../../../components/rich-text/RichText';
import { openingEditor } from '../../../lib/keys';
import { projectIntegrationsQuery } from '../api';
import { type StatusId, type StatusSetting } from '../../../api/statuses';
import { issueIdFromUrl, type DraftProblem, type DraftUpdate, type RecorderDraft } from './recorder-draft';
import { STATUS_FILL } from '../../../api/statuses';
import { STATUS_KEYS } from './statuses';
import { formatBytes, formatCount } from '../../../lib/format';

/** Most files one result takes (docs/api-decisions.md#attachments-on-results). */
const MAX_RESULT_FILES = 20;

function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** Time on the case: runs while the case is open on the page. */
function Timer({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return (
    <span className="run-timer" aria-label={`Time on this case ${elapsed(now - since)}`}>
      Time {elapsed(now - since)}
    </span>
  );
}

export { elapsed };

/** The status keys, and for one case a comment (rich text), an issue link and attachments sent with the status. */
export function Recorder({
  code,
  tcaseId,
  statuses,
  draft,
  onDraft,
  onRecord,
  startedAt,
  checkedCount,
  problem,
}: {
  code: string;
  tcaseId: string;
  statuses: StatusSetting[];
  draft: RecorderDraft;
  onDraft: DraftUpdate;
  onRecord: (status: StatusId) => void;
  startedAt: number;
  checkedCount: number;
  problem: DraftProblem | undefined;
}) {
  const linkError = problem?.field === 'link' ? problem.message : '';
  const id = useId();
  const integrations = useQuery(projectIntegrationsQuery(code));
  const trackers = integrations.data ?? [];
  const [uploadError, setUploadError] = useState('');
  const [commenting, setCommenting] = useState(false);
  const many = checkedCount > 1;

  const [dropping, setDropping] = useState(false);
  const upload = async (files: FileList | File[]) => {
    setUploadError('');
    const list = Array.from(files);
    if (draft.files.length + draft.uploading + list.length > MAX_RESULT_FILES) {
      setUploadError(`A result takes at most ${MAX_RESULT_FILES} files: remove some before attaching more.`);
      return;
    }
    for (const file of list) {
      // Counted in the case's draft: the result waits until every file is attached.
      onDraft((d) => ({ ...d, uploading: d.uploading + 1 }));
      try {
        // Uploaded for a result: the service removes it if no result names it within a day (extensions.md §8).
        const { id: fileId, url } = await uploadFile(file, 'result');
        // Uploads finish in any order, even after the tester moved on: each lands in its own case's draft.
        onDraft((d) => ({
          ...d,
          uploading: d.uploading - 1,
          files: [...d.files, { id: fileId, url, fileName: file.name, mimeType: file.type, size: file.size }],
        }));
      } catch (e) {
        onDraft((d) => ({ ...d, uploading: d.uploading - 1 }));
        setUploadError(`${file.name} was not uploaded: ${isApiError(e) ? e.message : 'the upload failed'}.`);
      }
    }
  };
  const derived = issueIdFromUrl(draft.linkUrl);
  // A custom integration has no API to comment on: its links are links.
  const commentsBack = trackers.some((t) => t.integrationId === draft.integrationId && t.type !== 'custom');

  return (
    <section className="recorder" aria-label="Record a result">
      <div className="recorder-head">
        <h3 className="recorder-title">
          {many ? `Record one status for ${formatCount(checkedCount)} selected cases` : 'Record a result'}
        </h3>
        {!many && <Timer key={`${tcaseId}-${startedAt}`} since={startedAt} />}
      </div>
      <div className="recorder-statuses">
        {statuses.map((s) => (
          <Button
            key={s.id}
            className="status-button"
            aria-keyshortcuts={STATUS_KEYS[s.id]}
            onPress={() => onRecord(s.id)}
          >
            <span className="status-dot" aria-hidden="true" style={{ background: STATUS_FILL[s.color] }} />
            {s.name}
            <kbd aria-hidden="true">{STATUS_KEYS[s.id].toUpperCase()}</kbd>
          </Button>
        ))}
      </div>
      {!many && (
        <>
          {commenting || draft.comment ? (
            <RichTextField
              label="Comment"
              value={draft.comment}
              autoFocus={commenting}
              onChange={(html) => onDraft((d) => ({ ...d, comment: html }))}
            />
          ) : (
            // The editor (ProseMirror) starts only when asked for: moving through cases by key stays instant.
            // Until it has the focus, what is typed is kept for it rather than taken as status keys.
            <button
              type="button"
              className="recorder-comment-open"
              onClick={() => {
                openingEditor();
                setCommenting(true);
              }}
            >
              Add a comment…
            </button>
          )}
          <p className="recorder-hint muted">Optional, sent with the status. Esc returns to the keys.</p>
          <fieldset className="recorder-link">
            <legend className="field-label">
              Issue link <span className="muted">(optional)</span>
            </legend>
            <div className="recorder-link-fields">
              {trackers.length > 0 && (
                <div>
                  <label className="field-label" htmlFor={`${id}-tracker`}>
                    Tracker
                  </label>
                  <select
                    id={`${id}-tracker`}
                    className="field-input"
                    value={draft.integrationId}
                    onChange={(e) => onDraft((d) => ({ ...d, integrationId: e.target.value }))}
                  >
                    <option value="">None (a plain link)</option>
                    {trackers.map((t) => (
                      <option key={t.integrationId} value={t.integrationId}>
                        {t.name}
                      </option>
                    ))}
                  </select>
                </div>
              )}
              <div className="recorder-link-url">
                <label className="field-label" htmlFor={`${id}-url`}>
                  Address of the issue
                </label>
                <input
                  id={`${id}-url`}
                  className="field-input"
                  type="url"
                  value={draft.linkUrl}
                  aria-invalid={linkError ? true : undefined}
                  aria-describedby={linkError ? `${id}-link-error` : undefined}
                  onChange={(e) => onDraft((d) => ({ ...d, linkUrl: e.target.value }))}
                  placeholder="https://tracker.example.com/issues/42"
                />
              </div>
              <div>
                <label className="field-label" htmlFor={`${id}-text`}>
                  Link text
                </label>
                <input
                  id={`${id}-text`}
                  className="field-input"
                  value={draft.linkText}
                  onChange={(e) => onDraft((d) => ({ ...d, linkText: e.target.value }))}
                  placeholder="Checkout fails"
                />
              </div>
              {commentsBack && (
                <div>
                  <label className="field-label" htmlFor={`${id}-issue`}>
                    Issue number or key
                  </label>
                  <input
                    id={`${id}-issue`}
                    className="field-input"
                    value={draft.issueId}
                    aria-describedby={`${id}-issue-hint`}
                    onChange={(e) => onDraft((d) => ({ ...d, issueId: e.target.value }))}
                    placeholder={derived || '42 or SHOP-7'}
                  />
                  <p id={`${id}-issue-hint`} className="field-hint muted">
                    The tracker gets a comment pointing back to this result
                    {derived && !draft.issueId ? ` (${derived}, read from the address)` : ''}.
                  </p>
                </div>
              )}
            </div>
            {linkError && (
              <p id={`${id}-link-error`} className="field-error" role="alert">
                {linkError}
              </p>
            )}
          </fieldset>
          <div
            className={dropping ? 'recorder-files dropping' : 'recorder-files'}
            onDragOver={(e) => {
              if (!e.dataTransfer.types.includes('Files')) return;
              e.preventDefault();
              setDropping(true);
            }}
            onDragLeave={() => setDropping(false)}
            onDrop={(e) => {
              setDropping(false);
              if (e.dataTransfer.files.length === 0) return;
              e.preventDefault();
              void upload(e.dataTransfer.files);
            }}
          >
            <label className="btn btn-secondary recorder-attach">
              Attach files
              <input
                type="file"
                multiple
                className="visually-hidden"
                aria-label="Attach files to the result"
                aria-describedby={`${id}-files-hint`}
                onChange={(e) => {
                  if (e.target.files?.length) void upload(e.target.files);
                  e.target.value = '';
                }}
              />
            </label>
            <span id={`${id}-files-hint`} className="muted recorder-files-hint">
              or drop them here (at most 20)
            </span>
            {draft.uploading > 0 && (
              <span role="status" className="muted">
                Uploading {draft.uploading === 1 ? 'a file' : `${draft.uploading} files`}…
              </span>
            )}
            {draft.files.length > 0 && (
              <ul className="chips" aria-label="Files attached to the result">
                {draft.files.map((f) => (
                  <li key={f.id} className="chip">
                    <a href={f.url} target="_blank" rel="noopener noreferrer">
                      {f.fileName}
                    </a>
                    {f.size !== undefined && <span className="muted"> {formatBytes(f.size)}</span>}
                    <Button
                      variant="ghost"
                      className="chip-remove"
                      aria-label={`Remove ${f.fileName}`}
                      onPress={() => onDraft((d) => ({ ...d, files: d.files.filter((x) => x.id !== f.id) }))}
                    >
                      ✕
                    </Button>
                  </li>
                ))}
              </ul>
            )}
            {(uploadError || problem?.field === 'files') && (
              <p className="field-error" role="alert">
                {problem?.field === 'files' ? problem.message : uploadError}
              </p>
            )}
          </div>
        </>
      )}
    </section>
  );
}
