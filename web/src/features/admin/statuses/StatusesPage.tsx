import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { isApiError } from '../../../api/client';
import { STATUS_FILL, type StatusSetting } from '../../../api/statuses';
import { Button } from '../../../components/Button';
import { FormError } from '../../../components/FormError';
import { SelectField } from '../../../components/SelectField';
import { ErrorState, Loading } from '../../../components/Status';
import { TextField } from '../../../components/TextField';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { FieldProblem } from '../../../lib/field-problem';
import { sentence, UNREACHABLE, useForm, type FormErrors } from '../../../lib/useForm';
import { formatCountOf } from '../../../lib/format';
import { COLORS, saveCustomStatuses, statusesQuery, statusUsageQuery } from './api';
import './statuses.css';

/** `/admin/statuses` (admins and the owner): the four custom result statuses. */
export function StatusesPage() {
  useDocumentTitle('Result statuses');
  const statuses = useQuery(statusesQuery());
  if (statuses.isPending) return <Loading label="Loading the statuses…" />;
  if (statuses.isError)
    return (
      <div className="page page-narrow">
        <ErrorState
          title="The statuses could not be loaded."
          error={statuses.error}
          onRetry={() => statuses.refetch()}
        />
      </div>
    );
  return <StatusesForm statuses={statuses.data} />;
}

/** `/statuses/5/name` is the name field of the fifth status sent (`name-custom1`), and so on. */
function statusErrorsOf(e: unknown, ids: string[]): FormErrors {
  if (e instanceof FieldProblem) return { fields: { [e.field]: e.message } };
  if (!isApiError(e)) return { form: UNREACHABLE, fields: {} };
  const fields: Record<string, string> = {};
  for (const d of e.body.details ?? []) {
    const m = /^\/statuses\/(\d+)\/(name|color|id)/.exec(d.path);
    if (m) fields[`${m[2]}-${ids[Number(m[1])]}`] ??= sentence(d.message);
  }
  return Object.keys(fields).length ? { fields } : { form: sentence(e.message), fields: {} };
}

function StatusesForm({ statuses }: { statuses: StatusSetting[] }) {
  const queryClient = useQueryClient();
  const [custom, setCustom] = useState(() => statuses.filter((s) => !s.isDefault));
  const [saved, setSaved] = useState('');
  const usage = useQuery(statusUsageQuery()).data;
  const wasActive = new Map(statuses.map((s) => [s.id, s.isActive]));
  const ids = custom.map((s) => s.id);
  const form = useForm({
    submit: async () => {
      setSaved('');
      for (const s of custom)
        if (!s.name.trim()) throw new FieldProblem(`name-${s.id}`, 'Give the status a name.');
      await saveCustomStatuses(
        custom.map(({ id, name, color, isActive }) => ({ id, name, color, isActive })),
      );
      await queryClient.invalidateQueries({ queryKey: statusesQuery().queryKey });
      setSaved('Saved: the run page offers the switched-on statuses.');
    },
    errors: (e) => statusErrorsOf(e, ids),
  });
  const update = (id: string, patch: Partial<StatusSetting>) => {
    setCustom((rows) => rows.map((r) => (r.id === id ? { ...r, ...patch } : r)));
    for (const k of Object.keys(patch)) form.fieldChanged(`${k}-${id}`);
  };
  // The preview shows the statuses as they would be after saving: built-ins, then the switched-on custom ones.
  const shown = [...statuses.filter((s) => s.isDefault), ...custom.filter((s) => s.isActive)];

  return (
    <div className="page page-narrow statuses-admin">
      <h1 className="page-title">Result statuses</h1>
      <p className="muted">
        Passed, failed, blocked, skipped and open are always there. Up to four statuses of your own can be
        named, coloured and switched on; a switched-off one is no longer offered, and results already recorded
        with it keep it.
      </p>
      <FormError message={form.formError} />
      <Form {...form.formProps} className="form" validationBehavior="aria">
        {custom.map((s, i) => (
          <fieldset key={s.id} className="panel status-row">
            <legend className="status-legend">
              <span className="status-dot" aria-hidden="true" style={{ background: STATUS_FILL[s.color] }} />
              Custom status {i + 1}
            </legend>
            <TextField
              label={`Status ${i + 1} name`}
              name={`name-${s.id}`}
              maxLength={16}
              description="Up to 16 characters."
              value={s.name}
              onChange={(name) => update(s.id, { name })}
            />
            <SelectField
              label={`Status ${i + 1} colour`}
              name={`color-${s.id}`}
              value={s.color}
              onChange={(color) => update(s.id, { color: color as StatusSetting['color'] })}
              options={COLORS.map((c) => ({ value: c, label: c[0].toUpperCase() + c.slice(1) }))}
              error={form.fieldErrors[`color-${s.id}`] ?? form.fieldErrors[`id-${s.id}`]}
            />
            <label className="status-switch">
              <input
                type="checkbox"
                checked={s.isActive}
                onChange={(e) => update(s.id, { isActive: e.target.checked })}
              />
              Offered on the run page
            </label>
            <StatusUse
              name={s.name.trim() || `Custom status ${i + 1}`}
              results={usage?.get(s.id)}
              switchingOff={wasActive.get(s.id) === true && !s.isActive}
            />
          </fieldset>
        ))}
        <div className="status-actions">
          <Button type="submit" variant="primary" isPending={form.submitting}>
            Save statuses
          </Button>
          <p className="status-saved" role="status">
            {saved}
          </p>
        </div>
      </Form>
      <section className="panel" aria-labelledby="status-preview-title">
        <h2 id="status-preview-title" className="panel-title">
          Preview: the run page’s statuses
        </h2>
        <div className="status-previews">
          {(['light', 'dark'] as const).map((theme) => (
            <div key={theme} className={`status-preview status-preview-${theme}`}>
              <p className="status-preview-title">{theme === 'light' ? 'Light theme' : 'Dark theme'}</p>
              <ul aria-label={`Statuses in the ${theme} theme`}>
                {shown.map((s) => (
                  <li key={s.id}>
                    <span
                      className="status-dot"
                      aria-hidden="true"
                      style={{ background: STATUS_FILL[s.color] }}
                    />
                    {s.name || <em>unnamed</em>}
                  </li>
                ))}
              </ul>
              <div className="status-preview-bar" aria-hidden="true">
                {shown.map((s) => (
                  <span key={s.id} style={{ background: STATUS_FILL[s.color] }} />
                ))}
              </div>
            </div>
          ))}
        </div>
      </section>
    </div>
  );
}

/** The results recorded with a status, and what switching it off does to them, beside its switch. */
function StatusUse({
  name,
  results,
  switchingOff,
}: {
  name: string;
  results: number | undefined;
  switchingOff: boolean;
}) {
  if (results === undefined) return null;
  const recorded = `${formatCountOf(results, 'result was', 'results were')} recorded with “${name}”`;
  return (
    <p className={`status-use${switchingOff ? ' status-use-off' : ''}`} aria-live="polite">
      {switchingOff
        ? results === 0
          ? `No result was recorded with “${name}”: switching it off only stops offering it.`
          : `Switching it off: ${recorded}; ${results === 1 ? 'it keeps' : 'they keep'} it, but no new result can use it.`
        : results === 0
          ? 'No result recorded with it yet.'
          : `${recorded}.`}
    </p>
  );
}
