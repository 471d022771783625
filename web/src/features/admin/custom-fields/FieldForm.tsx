import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { isApiError } from '../../../api/client';
import { Button } from '../../../components/Button';
import { FormError } from '../../../components/FormError';
import { RichTextField } from '../../../components/rich-text/RichText';
import { SelectField } from '../../../components/SelectField';
import { TextField } from '../../../components/TextField';
import { FieldProblem } from '../../../lib/field-problem';
import { sentence, UNREACHABLE, useForm, type FormErrors } from '../../../lib/useForm';
import { projectsQuery } from '../../projects';
import { TYPE_NAMES, type CreateFieldBody, type CustomField, type FieldType } from './api';

interface OptionRow {
  key: number;
  id?: string;
  value: string;
}
let nextKey = 0;

/** `/options/2/value` is option row 2's field (`option-2`), `/allowedProjectIds/0` the projects'; else top-level. */
function fieldErrorsOf(e: unknown): FormErrors {
  if (e instanceof FieldProblem) return { fields: { [e.field]: e.message } };
  if (!isApiError(e)) return { form: UNREACHABLE, fields: {} };
  const fields: Record<string, string> = {};
  for (const d of e.body.details ?? []) {
    const m = /^\/options\/(\d+)/.exec(d.path);
    fields[m ? `option-${m[1]}` : (d.path.split('/')[1] ?? '')] ??= sentence(d.message);
  }
  if (e.status === 409) return { fields: { systemName: sentence(e.message) } };
  return Object.keys(fields).length ? { fields } : { form: sentence(e.message), fields: {} };
}

/** A field's system name from its name: `Browser version` → `browser_version`. */
const suggestSystemName = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+|_+$/g, '')
    .slice(0, 64);

export type FieldSave = (body: CreateFieldBody) => Promise<unknown>;

/**
 * Creates a custom field (every type) or edits one (its type and system name are fixed: stored values and
 * filters depend on them). A refused save keeps everything typed and says why beside the field.
 */
export function FieldForm({
  field,
  onSave,
  onCancel,
}: {
  field?: CustomField;
  onSave: FieldSave;
  onCancel?: () => void;
}) {
  const projects = useQuery(projectsQuery);
  const [type, setType] = useState<FieldType>(field?.type ?? 'text');
  const [name, setName] = useState(field?.name ?? '');
  const [systemName, setSystemName] = useState(field?.systemName ?? '');
  const [systemTouched, setSystemTouched] = useState(!!field);
  const [required, setRequired] = useState(field?.required ?? false);
  const [enabled, setEnabled] = useState(field?.enabled ?? true);
  const [options, setOptions] = useState<OptionRow[]>(
    (field?.options ?? []).map((o) => ({ key: nextKey++, id: o.id, value: o.value })),
  );
  const [defaultValue, setDefaultValue] = useState(field?.defaultValue ?? '');
  const [allProjects, setAllProjects] = useState(field?.allowAllProjects ?? true);
  const [projectIds, setProjectIds] = useState<string[]>(field?.allowedProjectIds ?? []);
  const [saved, setSaved] = useState('');

  const form = useForm({
    submit: async () => {
      setSaved('');
      if (!name.trim()) throw new FieldProblem('name', 'Give the field a name.');
      if (!allProjects && projectIds.length === 0)
        throw new FieldProblem('allowedProjectIds', 'Choose at least one project, or allow all projects.');
      const body: CreateFieldBody = {
        type,
        systemName: systemName.trim(),
        name: name.trim(),
        required,
        enabled,
        defaultValue: defaultValue === '' ? null : defaultValue,
        allowAllProjects: allProjects,
        ...(type === 'dropdown'
          ? { options: options.map((o) => ({ id: o.id, value: o.value.trim() })) }
          : {}),
        ...(allProjects ? {} : { allowedProjectIds: projectIds }),
      };
      await onSave(body);
      setSaved(field ? 'Saved.' : '');
    },
    errors: fieldErrorsOf,
  });
  const changed = (name: string) => form.fieldChanged(name);
  const dropdownValues = options.map((o) => o.value.trim()).filter(Boolean);

  return (
    <Form {...form.formProps} className="form cf-form" validationBehavior="aria">
      <FormError message={form.formError} />
      {field ? (
        <p className="muted">
          {TYPE_NAMES[field.type]} field <code>{field.systemName}</code>: the type and system name stay as
          they are.
        </p>
      ) : (
        <SelectField
          label="Type"
          name="type"
          value={type}
          onChange={(v) => {
            changed('type');
            setType(v as FieldType);
            setDefaultValue('');
          }}
          options={(Object.keys(TYPE_NAMES) as FieldType[]).map((t) => ({ value: t, label: TYPE_NAMES[t] }))}
          error={form.fieldErrors.type}
        />
      )}
      <TextField
        label="Name"
        name="name"
        autoFocus
        value={name}
        onChange={(v) => {
          changed('name');
          setName(v);
          if (!systemTouched) setSystemName(suggestSystemName(v));
        }}
      />
      {!field && (
        <TextField
          label="System name"
          name="systemName"
          description="Lower-case letters, digits and _; the key of the field in the API and in filters. It never changes."
          value={systemName}
          onChange={(v) => {
            changed('systemName');
            setSystemTouched(true);
            setSystemName(v);
          }}
        />
      )}
      {type === 'dropdown' && (
        <fieldset className="cf-options">
          <legend className="field-label">Options</legend>
          {form.fieldErrors.options && <p className="field-error">{form.fieldErrors.options}</p>}
          {options.map((o, i) => (
            <div key={o.key} className="cf-option-row">
              <TextField
                label={`Option ${i + 1}`}
                name={`option-${i}`}
                value={o.value}
                onChange={(value) => {
                  changed(`option-${i}`);
                  changed('options');
                  setOptions((rows) => rows.map((r) => (r.key === o.key ? { ...r, value } : r)));
                }}
              />
              <Button
                variant="ghost"
                aria-label={`Remove option ${i + 1}`}
                onPress={() => setOptions((rows) => rows.filter((r) => r.key !== o.key))}
              >
                Remove
              </Button>
            </div>
          ))}
          <Button
            onPress={() => {
              changed('options');
              setOptions((rows) => [...rows, { key: nextKey++, value: '' }]);
            }}
          >
            Add an option
          </Button>
        </fieldset>
      )}
      <DefaultValue
        type={type}
        value={defaultValue}
        options={dropdownValues}
        error={form.fieldErrors.defaultValue}
        onChange={(v) => {
          changed('defaultValue');
          setDefaultValue(v);
        }}
      />
      <label className="checkbox-field">
        <input type="checkbox" checked={required} onChange={(e) => setRequired(e.target.checked)} />
        Required: a test case cannot be saved without a value
      </label>
      <label className="checkbox-field">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        Enabled: shown in test cases and filters
      </label>
      <fieldset className="cf-projects">
        <legend className="field-label">Projects</legend>
        <label className="checkbox-field">
          <input
            type="checkbox"
            checked={allProjects}
            onChange={(e) => {
              changed('allowedProjectIds');
              setAllProjects(e.target.checked);
            }}
          />
          Every project, also those made later
        </label>
        {!allProjects && (
          <div className="cf-project-list" role="group" aria-label="Only these projects">
            {(projects.data ?? []).map((p) => (
              <label key={p.id} className="checkbox-field">
                <input
                  type="checkbox"
                  checked={projectIds.includes(p.id)}
                  onChange={(e) => {
                    changed('allowedProjectIds');
                    setProjectIds((ids) =>
                      e.target.checked ? [...ids, p.id] : ids.filter((x) => x !== p.id),
                    );
                  }}
                />
                {p.code} · {p.title}
              </label>
            ))}
          </div>
        )}
        {form.fieldErrors.allowedProjectIds && (
          <p className="field-error">{form.fieldErrors.allowedProjectIds}</p>
        )}
      </fieldset>
      <div className="form-row">
        <Button type="submit" variant="primary" isPending={form.submitting}>
          {field ? 'Save field' : 'Create field'}
        </Button>
        {onCancel && (
          <Button onPress={onCancel} isDisabled={form.submitting}>
            Cancel
          </Button>
        )}
        <p className="cf-saved" role="status">
          {saved}
        </p>
      </div>
    </Form>
  );
}

/** The default a new test case starts with, in the field's own kind of input. */
function DefaultValue({
  type,
  value,
  options,
  error,
  onChange,
}: {
  type: FieldType;
  value: string;
  options: string[];
  error?: string;
  onChange: (v: string) => void;
}) {
  switch (type) {
    case 'checkbox':
      return (
        <SelectField
          label="Default"
          name="defaultValue"
          value={value}
          onChange={onChange}
          placeholder="No default"
          options={[
            { value: 'true', label: 'Ticked' },
            { value: 'false', label: 'Not ticked' },
          ]}
          error={error}
        />
      );
    case 'dropdown':
      return (
        <SelectField
          label="Default"
          name="defaultValue"
          value={value}
          onChange={onChange}
          placeholder="No default"
          options={options.map((o) => ({ value: o, label: o }))}
          error={error}
        />
      );
    case 'richtext':
      return <RichTextField label="Default" value={value} onChange={onChange} error={error} />;
    default:
      return (
        <TextField
          label="Default"
          name="defaultValue"
          description="Leave empty for no default."
          value={value}
          onChange={onChange}
        />
      );
  }
}
