import { useQuery } from '@tanstack/react-query';
import { useId, useMemo, useState, type ReactNode } from 'react';
import { Button } from '../../../components/Button';
import { TextField } from '../../../components/TextField';
import { FolderPathOption } from '../../../components/FolderPath';
import { folderPaths, pathText } from '../../../lib/folder-path';
import { isApiError } from '../../../api/client';
import { PRIORITIES, PRIORITY_NAMES } from '../../../api/priorities';
import {
  customFieldsQuery,
  foldersQuery,
  sharedPreconditionsQuery,
  sharedStepsQuery,
  tagsQuery,
  uploadFile,
  type CustomField,
} from '../api';
import { placeholders, type Draft } from '../draft';

export type SetDraft = (patch: Partial<Draft> | ((d: Draft) => Partial<Draft>)) => void;
import { Attachments } from '../Attachments';
import { RichTextField } from '../../../components/rich-text/RichText';
import { StepsEditor } from './StepsEditor';
import { TagsField } from './TagsField';
import { formatCount } from '../../../lib/format';

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="panel tcase-section">
      <h2 id={id} className="panel-title">
        {title}
      </h2>
      {children}
    </section>
  );
}

function NativeSelect({
  label,
  value,
  onChange,
  children,
  error,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  children: ReactNode;
  error?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <select
        id={id}
        className="field-input"
        value={value}
        aria-describedby={error ? `${id}-err` : undefined}
        aria-invalid={error ? true : undefined}
        onChange={(e) => onChange(e.target.value)}
      >
        {children}
      </select>
      {error && (
        <span id={`${id}-err`} className="field-error">
          {error}
        </span>
      )}
    </div>
  );
}

/** Rows of text + URL (requirements, links). */
function PairList({
  name,
  rows,
  onChange,
  path,
}: {
  name: string;
  rows: { text: string; url: string }[];
  onChange: (rows: { text: string; url: string }[]) => void;
  path: string;
}) {
  const set = (i: number, patch: Partial<{ text: string; url: string }>) =>
    onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div className="pair-list">
      {rows.map((r, i) => (
        <div key={i} className="pair-row">
          <TextField
            label={`${name} ${i + 1} text`}
            value={r.text}
            onChange={(text) => set(i, { text })}
            name={`${path.slice(1)}/${i}/text`}
          />
          <TextField
            label={`${name} ${i + 1} URL`}
            value={r.url}
            type="url"
            onChange={(url) => set(i, { url })}
            name={`${path.slice(1)}/${i}/url`}
          />
          <Button
            variant="ghost"
            aria-label={`Remove ${name.toLowerCase()} ${i + 1}`}
            onPress={() => onChange(rows.filter((_, j) => j !== i))}
          >
            ✕
          </Button>
        </div>
      ))}
      <Button onPress={() => onChange([...rows, { text: '', url: '' }])}>Add {name.toLowerCase()}</Button>
    </div>
  );
}

function CustomFieldInput({
  field,
  value,
  onChange,
  error,
}: {
  field: CustomField;
  value: string | null | undefined;
  onChange: (v: string | null) => void;
  error?: string;
}) {
  const label = `${field.name}${field.required ? ' (required)' : ''}`;
  const shown = value ?? field.defaultValue ?? '';
  switch (field.type) {
    case 'checkbox':
      return (
        <label className="checkbox-field">
          <input
            type="checkbox"
            checked={shown === 'true'}
            onChange={(e) => onChange(String(e.target.checked))}
          />
          {label}
          {error && <span className="field-error">{error}</span>}
        </label>
      );
    case 'dropdown':
      return (
        <NativeSelect
          label={label}
          value={shown}
          onChange={(v) => onChange(v === '' ? null : v)}
          error={error}
        >
          <option value="">{field.defaultValue ? `Default (${field.defaultValue})` : 'Not set'}</option>
          {(field.options ?? []).map((o) => (
            <option key={o.id} value={o.value}>
              {o.value}
            </option>
          ))}
        </NativeSelect>
      );
    case 'richtext':
      return <RichTextField label={label} value={shown} onChange={(v) => onChange(v)} error={error} />;
    default:
      return (
        <TextField
          label={label}
          value={shown}
          onChange={(v) => onChange(v)}
          name={`customFields/${field.systemName}`}
        />
      );
  }
}

/** A template's parameter rows: one filled case is made from each row. */
function ParameterRows({ draft, set }: { draft: Draft; set: SetDraft }) {
  const names = placeholders(draft);
  const rows = draft.parameterValues;
  const setCell = (i: number, name: string, v: string) =>
    set({
      parameterValues: rows.map((r, j) => (j === i ? { ...r, values: { ...r.values, [name]: v } } : r)),
    });
  if (names.length === 0)
    return (
      <p className="muted">
        Write placeholders like <code>{'${browser}'}</code> in the title, precondition or steps; each becomes
        a column here.
      </p>
    );
  return (
    <div className="param-table-wrap">
      <table className="param-table">
        <caption className="visually-hidden">Parameter rows</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            {names.map((n) => (
              <th key={n} scope="col">
                {n}
              </th>
            ))}
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              <td>{i + 1}</td>
              {names.map((n) => (
                <td key={n}>
                  <input
                    className="field-input"
                    aria-label={`Row ${i + 1} ${n}`}
                    value={r.values[n] ?? ''}
                    onChange={(e) => setCell(i, n, e.target.value)}
                  />
                </td>
              ))}
              <td>
                <Button
                  variant="ghost"
                  aria-label={`Remove parameter row ${i + 1}`}
                  onPress={() => set({ parameterValues: rows.filter((_, j) => j !== i) })}
                >
                  ✕
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Button
        onPress={() =>
          set({ parameterValues: [...rows, { values: Object.fromEntries(names.map((n) => [n, ''])) }] })
        }
      >
        Add parameter row
      </Button>
    </div>
  );
}

/** Every folder by its whole path ("Checkout / Payment"), sorted by it, for the folder picker. */
function folderChoices(folders: { id: number; parentId: number; title: string }[]) {
  return [...folderPaths(folders)]
    .map(([id, path]) => ({ id, path, text: pathText(path) }))
    .sort((a, b) => a.text.localeCompare(b.text));
}

export function TestCaseForm({
  code,
  draft,
  set,
  errorAt,
  isNew,
}: {
  code: string;
  draft: Draft;
  set: SetDraft;
  errorAt: (path: string) => string | undefined;
  isNew: boolean;
}) {
  const folders = useQuery(foldersQuery(code));
  // Once per folder list, not on every key typed in the form: a project may have thousands of folders.
  const choices = useMemo(() => folderChoices(folders.data ?? []), [folders.data]);
  const tags = useQuery(tagsQuery(code));
  const fields = useQuery(customFieldsQuery(code));
  const sharedSteps = useQuery(sharedStepsQuery(code));
  const sharedPre = useQuery(sharedPreconditionsQuery(code));
  const [uploading, setUploading] = useState(0);
  const [uploadError, setUploadError] = useState('');

  const upload = async (files: FileList) => {
    setUploadError('');
    for (const file of Array.from(files)) {
      setUploading((n) => n + 1);
      try {
        const { id, url } = await uploadFile(file);
        // Several uploads finish in any order: each adds to the files as they are then.
        set((d) => ({
          files: [
            ...d.files,
            {
              id,
              url,
              fileName: file.name,
              mimeType: file.type || 'application/octet-stream',
              size: file.size,
            },
          ],
        }));
      } catch (e) {
        setUploadError(`${file.name} was not uploaded: ${isApiError(e) ? e.message : 'the upload failed'}`);
      } finally {
        setUploading((n) => n - 1);
      }
    }
  };

  const enabledFields = (fields.data?.customFields ?? []).filter((f) => f.enabled);

  return (
    <div className="tcase-form">
      <div className="form-grid">
        <TextField
          label="Title"
          className="field-wide"
          value={draft.title}
          onChange={(title) => set({ title })}
          name="title"
          autoFocus
        />
        <NativeSelect
          label="Priority"
          value={draft.priority}
          onChange={(v) => set({ priority: v as Draft['priority'] })}
          error={errorAt('/priority')}
        >
          {PRIORITIES.map((p) => (
            <option key={p} value={p}>
              {PRIORITY_NAMES[p]}
            </option>
          ))}
        </NativeSelect>
        <NativeSelect
          label="Folder"
          value={String(draft.folderId)}
          onChange={(v) => set({ folderId: Number(v) })}
          error={errorAt('/folderId')}
        >
          {!folders.data && <option value={draft.folderId}>Loading folders…</option>}
          {choices.map((f) => (
            <FolderPathOption key={f.id} value={f.id} path={f.path} max={70} />
          ))}
        </NativeSelect>
        {isNew && (
          <NativeSelect label="Type" value={draft.type} onChange={(v) => set({ type: v as Draft['type'] })}>
            <option value="standalone">Test case</option>
            <option value="template">Template (one filled case per parameter row)</option>
          </NativeSelect>
        )}
        <label className="checkbox-field">
          <input
            type="checkbox"
            checked={draft.isDraft}
            onChange={(e) => set({ isDraft: e.target.checked })}
          />
          Draft (never selected into runs)
        </label>
      </div>

      <Section id="precondition-edit" title="Precondition">
        <div role="radiogroup" aria-label="Precondition source" className="segmented">
          {(['own', 'shared'] as const).map((m) => (
            <label key={m} className="radio">
              <input
                type="radio"
                name="precondition-mode"
                checked={draft.preconditionMode === m}
                onChange={() => set({ preconditionMode: m })}
              />
              {m === 'own' ? 'Own text' : 'Shared precondition'}
            </label>
          ))}
        </div>
        {draft.preconditionMode === 'own' ? (
          <RichTextField
            label="Precondition text"
            value={draft.preconditionText}
            onChange={(preconditionText) => set({ preconditionText })}
            error={errorAt('/precondition')}
          />
        ) : (
          <NativeSelect
            label="Shared precondition"
            value={draft.sharedPreconditionId === undefined ? '' : String(draft.sharedPreconditionId)}
            onChange={(v) => set({ sharedPreconditionId: v ? Number(v) : undefined })}
            error={errorAt('/precondition')}
          >
            <option value="">
              {(sharedPre.data ?? []).length ? 'Choose one…' : 'No shared preconditions in this project'}
            </option>
            {(sharedPre.data ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.title}
              </option>
            ))}
          </NativeSelect>
        )}
      </Section>

      <Section id="steps-edit" title={`Steps (${formatCount(draft.steps.length)})`}>
        <StepsEditor
          steps={draft.steps}
          onChange={(steps) => set({ steps })}
          sharedSteps={sharedSteps.data?.sharedSteps ?? []}
          errorAt={errorAt}
        />
        {errorAt('/steps') && <p className="field-error">{errorAt('/steps')}</p>}
      </Section>

      {draft.type === 'template' && (
        <Section id="params-edit" title="Parameter rows">
          <ParameterRows draft={draft} set={set} />
          {errorAt('/parameterValues') && <p className="field-error">{errorAt('/parameterValues')}</p>}
        </Section>
      )}

      <Section id="tags-edit" title="Tags">
        <TagsField
          value={draft.tags}
          onChange={(t) => set({ tags: t })}
          known={(tags.data ?? []).map((t) => t.title)}
          error={errorAt('/tags')}
        />
      </Section>

      {enabledFields.length > 0 && (
        <Section id="fields-edit" title="Custom fields">
          <div className="form-grid">
            {enabledFields.map((f) => (
              <CustomFieldInput
                key={f.id}
                field={f}
                value={draft.customFields[f.systemName]}
                onChange={(v) => set({ customFields: { ...draft.customFields, [f.systemName]: v } })}
                error={errorAt(`/customFields/${f.systemName}`)}
              />
            ))}
          </div>
        </Section>
      )}

      <Section id="requirements-edit" title="Requirements">
        <PairList
          name="Requirement"
          path="/requirements"
          rows={draft.requirements}
          onChange={(requirements) => set({ requirements })}
        />
      </Section>

      <Section id="links-edit" title="Links">
        <PairList name="Link" path="/links" rows={draft.links} onChange={(links) => set({ links })} />
      </Section>

      <Section id="files-edit" title="Attachments">
        <Attachments
          files={draft.files}
          onRemove={(id) => set({ files: draft.files.filter((f) => f.id !== id) })}
        />
        <label className="btn btn-secondary file-pick">
          Upload files
          <input
            type="file"
            multiple
            className="visually-hidden"
            onChange={(e) => {
              if (e.target.files?.length) void upload(e.target.files);
              e.target.value = '';
            }}
          />
        </label>
        {uploading > 0 && <p role="status">Uploading {uploading} file(s)…</p>}
        {uploadError && (
          <p className="field-error" role="alert">
            {uploadError}
          </p>
        )}
        {errorAt('/files') && <p className="field-error">{errorAt('/files')}</p>}
      </Section>
    </div>
  );
}
