import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { isApiError } from '../../api/client';
import { queryKeys } from '../../api/keys';
import { PRIORITIES, PRIORITY_NAMES, type Priority } from '../../api/priorities';
import { runsQuery } from '../../api/queries';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { SelectField } from '../../components/SelectField';
import { TextField } from '../../components/TextField';
import { formatCount, formatCountOf } from '../../lib/format';
import { useForm } from '../../lib/useForm';
import {
  addCasesToRun,
  customFieldsQuery,
  patchTestCase,
  useRepositoryWrites,
  type CustomField,
  type TestCasePatch,
} from './api';
import { BULK_EDIT_MAX, caseName, eachCase, loadedCases, type CaseFailure } from './bulk-edit';

const cases = (n: number) => formatCountOf(n, 'test case');
const splitTags = (s: string) =>
  s
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** How a bulk action ended: a sentence, and each case it could not change with the reason in words. */
export interface BulkOutcome {
  summary: string;
  /** What did not happen to the failed ones: "changed", "added to the run". */
  verb: string;
  failures: { id: string; name: string; message: string }[];
}

/** After the work: what happened, each failed case by name; Close keeps the failed cases selected. */
function Outcome({ outcome, onClose }: { outcome: BulkOutcome; onClose: () => void }) {
  return (
    <>
      <p role="status">{outcome.summary}</p>
      {outcome.failures.length > 0 && (
        <div role="alert" className="bulk-failures">
          <p>
            {`${cases(outcome.failures.length)} could not be ${outcome.verb} ` +
              `(${outcome.failures.length === 1 ? 'it stays' : 'they stay'} selected):`}
          </p>
          <ul>
            {outcome.failures.map((f) => (
              <li key={f.id}>
                <strong>{f.name}</strong>: {f.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="dialog-actions">
        <Button variant="primary" onPress={onClose} autoFocus>
          Close
        </Button>
      </div>
    </>
  );
}

/** The value inputs of one custom field: "" leaves the field as each case has it. */
function FieldValue({
  field,
  value,
  onChange,
}: {
  field: CustomField;
  value: string;
  onChange: (v: string) => void;
}) {
  if (field.type === 'dropdown' || field.type === 'checkbox')
    return (
      <SelectField
        label={field.name}
        value={value}
        onChange={onChange}
        placeholder="Leave as it is"
        options={
          field.type === 'checkbox'
            ? [
                { value: 'true', label: 'Yes' },
                { value: 'false', label: 'No' },
              ]
            : (field.options ?? []).map((o) => ({ value: o.value, label: o.value }))
        }
      />
    );
  return (
    <TextField
      label={field.name}
      value={value}
      onChange={onChange}
      description="Left empty, each case keeps its value."
    />
  );
}

/**
 * Priority, custom field values and tags for many cases: tags in one request per thousand cases, the rest one
 * case at a time (the API has no bulk PATCH), a few at once with the progress said, at most BULK_EDIT_MAX.
 */
export function BulkEditDialog({
  code,
  ids,
  onClose,
}: {
  code: string;
  ids: string[];
  onClose: (failed: string[] | null) => void;
}) {
  const qc = useQueryClient();
  const writes = useRepositoryWrites(code);
  const fields = useQuery(customFieldsQuery(code));
  // Rich text is written in the case's editor, not as one value for many cases.
  const editable = (fields.data?.customFields ?? []).filter((f) => f.enabled && f.type !== 'richtext');
  const [priority, setPriority] = useState<Priority | ''>('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [tags, setTags] = useState('');
  const [done, setDone] = useState<number | null>(null);
  const [outcome, setOutcome] = useState<BulkOutcome | null>(null);

  const run = async () => {
    const customFields = Object.fromEntries(
      Object.entries(values)
        .filter(([, v]) => v !== '')
        .map(([k, v]) => [k, { value: v }]),
    );
    const patch: TestCasePatch = {
      ...(priority ? { priority } : {}),
      ...(Object.keys(customFields).length ? { customFields } : {}),
    };
    const perCase = Object.keys(patch).length > 0;
    const addTags = splitTags(tags);
    if (!perCase && addTags.length === 0)
      throw new Error('Choose a priority, a field value or tags to add: nothing would change.');
    if (perCase && ids.length > BULK_EDIT_MAX)
      throw new Error(
        `Priority and field values are changed one case at a time: select at most ${formatCount(BULK_EDIT_MAX)} test cases (${formatCount(ids.length)} are selected).`,
      );
    const known = loadedCases(qc, code);
    const failures: CaseFailure[] = [];
    if (addTags.length) {
      for (let i = 0; i < ids.length; i += 1000) {
        const part = ids.slice(i, i + 1000);
        try {
          await writes.bulkTags.mutateAsync({ tcaseIds: part, addTags });
        } catch (e) {
          failures.push(...part.map((id) => ({ id, message: `tags not added: ${message(e)}` })));
        }
      }
    }
    if (perCase) {
      setDone(0);
      const tagFailed = new Set(failures.map((f) => f.id));
      failures.push(
        ...(await eachCase(
          ids.filter((id) => !tagFailed.has(id)),
          (id) => patchTestCase(code, id, patch),
          setDone,
        )),
      );
    }
    await Promise.all([
      qc.invalidateQueries({ queryKey: queryKeys.caseLists(code) }),
      qc.invalidateQueries({ queryKey: queryKeys.testCases(code) }),
    ]);
    const changed = ids.length - failures.length;
    setOutcome({
      summary: `Changed ${cases(changed)}${failures.length ? ` of ${formatCount(ids.length)}` : ''}.`,
      verb: 'changed',
      failures: failures.map((f) => ({ ...f, name: caseName(code, known, f.id) })),
    });
  };
  const form = useForm({ submit: run, errors: (e) => ({ form: message(e), fields: {} }) });
  const busy = form.submitting;
  const close = () => onClose(outcome ? outcome.failures.map((f) => f.id) : null);

  return (
    <Dialog
      title={`Edit ${cases(ids.length)}`}
      isOpen
      onOpenChange={(open) => !open && close()}
      isDismissable={!busy}
    >
      {outcome ? (
        <Outcome outcome={outcome} onClose={close} />
      ) : (
        <Form {...form.formProps} validationBehavior="aria" className="bulk-edit-form">
          <p className="muted">Only what you set changes; everything else stays as each case has it.</p>
          <SelectField
            label="Priority"
            value={priority}
            onChange={(v) => setPriority(v as Priority | '')}
            placeholder="Leave as it is"
            options={PRIORITIES.map((p) => ({ value: p, label: PRIORITY_NAMES[p] }))}
          />
          {editable.map((f) => (
            <FieldValue
              key={f.id}
              field={f}
              value={values[f.systemName] ?? ''}
              onChange={(v) => setValues((all) => ({ ...all, [f.systemName]: v }))}
            />
          ))}
          <TextField
            label="Add tags"
            description="Separate tags with commas; new ones are created."
            value={tags}
            onChange={setTags}
          />
          {busy && done !== null && (
            <div className="bulk-progress">
              <progress max={ids.length} value={done} aria-label="Test cases changed" />
              <span role="status">
                Changed {formatCount(done)} of {formatCount(ids.length)}…
              </span>
            </div>
          )}
          {form.formError && (
            <p className="field-error" role="alert">
              {form.formError}
            </p>
          )}
          <div className="dialog-actions">
            <Button slot="close" isDisabled={busy}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" isDisabled={busy}>
              {`Change ${cases(ids.length)}`}
            </Button>
          </div>
        </Form>
      )}
    </Dialog>
  );
}

/** Refusals of the API name cases by id: people read them by marker and title. */
const named = (text: string, code: string, known: ReturnType<typeof loadedCases>) =>
  text.replace(/\b[0-9a-z]{16,}\b/gi, (id) => (known.has(id) ? caseName(code, known, id) : id));

/**
 * Adds the selection to an open run that takes cases (static_struct: a fixed list, added to by hand). Drafts
 * and templates never run: they are left out and named; the rest go in one request per 10,000 (the API's most).
 */
export function AddToRunDialog({
  code,
  ids,
  onClose,
}: {
  code: string;
  ids: string[];
  onClose: (failed: string[] | null) => void;
}) {
  const qc = useQueryClient();
  const runs = useQuery(runsQuery(code));
  const open = (runs.data ?? []).filter((r) => !r.closed && r.type === 'static_struct');
  const [runId, setRunId] = useState('');
  const [outcome, setOutcome] = useState<BulkOutcome | null>(null);
  const chosen = runId || (open[0] ? String(open[0].id) : '');

  const run = async () => {
    const target = open.find((r) => String(r.id) === chosen);
    if (!target) throw new Error('Choose the run to add the test cases to.');
    const known = loadedCases(qc, code);
    const failures: BulkOutcome['failures'] = [];
    const addable: string[] = [];
    for (const id of ids) {
      const c = known.get(id);
      const name = caseName(code, known, id);
      if (c?.isDraft)
        failures.push({ id, name, message: 'a draft is never added to a run; publish it first' });
      else if (c?.type === 'template')
        failures.push({ id, name, message: 'a template is not run itself; its filled cases are' });
      else addable.push(id);
    }
    let added = 0;
    for (let i = 0; i < addable.length; i += 10_000) {
      const part = addable.slice(i, i + 10_000);
      try {
        added += (await addCasesToRun(code, target.id, part)).added ?? 0;
      } catch (e) {
        const why = isApiError(e)
          ? [e.message, ...(e.body.details ?? []).map((d) => d.message)].join('; ')
          : message(e);
        failures.push(
          ...part.map((id) => ({ id, name: caseName(code, known, id), message: named(why, code, known) })),
        );
      }
    }
    await qc.invalidateQueries({ queryKey: queryKeys.runs(code) });
    const already = ids.length - failures.length - added;
    setOutcome({
      summary:
        `Added ${cases(added)} to “${target.title}”` +
        (already > 0 ? `; ${formatCountOf(already, 'was', 'were')} in it already.` : '.'),
      verb: 'added',
      failures,
    });
  };
  const form = useForm({ submit: run, errors: (e) => ({ form: message(e), fields: {} }) });
  const busy = form.submitting;
  const close = () => onClose(outcome ? outcome.failures.map((f) => f.id) : null);

  return (
    <Dialog
      title={`Add ${cases(ids.length)} to a run`}
      isOpen
      onOpenChange={(o) => !o && close()}
      isDismissable={!busy}
    >
      {outcome ? (
        <Outcome outcome={outcome} onClose={close} />
      ) : runs.isPending ? (
        <p role="status">Loading the project’s open runs…</p>
      ) : open.length === 0 ? (
        <>
          <p>
            No open run of this project takes cases now: only a static run (its cases chosen one by one) is
            added to after it starts. Create one on the Runs page.
          </p>
          <div className="dialog-actions">
            <Button slot="close" variant="primary" autoFocus>
              Close
            </Button>
          </div>
        </>
      ) : (
        <Form {...form.formProps} validationBehavior="aria">
          <SelectField
            label="Run"
            value={chosen}
            onChange={setRunId}
            options={open.map((r) => ({ value: String(r.id), label: r.title }))}
          />
          {busy && <p role="status">Adding…</p>}
          {form.formError && (
            <p className="field-error" role="alert">
              {form.formError}
            </p>
          )}
          <div className="dialog-actions">
            <Button slot="close" isDisabled={busy}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" isDisabled={busy}>
              {`Add ${cases(ids.length)}`}
            </Button>
          </div>
        </Form>
      )}
    </Dialog>
  );
}
