import type { CustomField, FieldChoice, FileField } from './api';

const TYPES: [NonNullable<FieldChoice['type']>, string][] = [
  ['text', 'Text'],
  ['dropdown', 'Dropdown'],
  ['checkbox', 'Checkbox'],
  ['richtext', 'Rich text'],
];

/** What the import does with each key without a choice, as the preview said. */
export function defaultChoices(fields: FileField[]): Record<string, FieldChoice> {
  return Object.fromEntries(
    fields.map((f): [string, FieldChoice] => [
      f.key,
      f.action === 'map' && f.fieldId
        ? { action: 'map', fieldId: f.fieldId }
        : f.action === 'create'
          ? { action: 'create', type: f.guessedType, name: f.name }
          : { action: 'skip' },
    ]),
  );
}

/**
 * The custom fields the file carries (the preview read the whole file), each with the values seen and what becomes
 * of it: a new field (admins), an existing field, or left out. Nothing in the file is ever refused for them.
 */
export function FieldChoices({
  fields,
  existing,
  choices,
  mayCreate,
  onChange,
}: {
  fields: FileField[];
  existing: CustomField[];
  choices: Record<string, FieldChoice>;
  mayCreate: boolean;
  onChange: (key: string, choice: FieldChoice) => void;
}) {
  return (
    <fieldset className="import-fieldset import-field-choices">
      <legend className="field-label">Custom fields in the file</legend>
      <p className="field-description">
        {mayCreate
          ? 'Each one becomes a new custom field, goes into a field you have, or is left out.'
          : 'Each one goes into a field you have, or is left out: only an admin may create custom fields.'}{' '}
        The result lists what was left out.
      </p>
      <ul className="import-field-list">
        {fields.map((f) => {
          const c = choices[f.key] ?? { action: 'skip' };
          const value = c.action === 'map' ? `map:${c.fieldId}` : c.action;
          return (
            <li key={f.key} className="import-field-choice">
              <div className="import-field-key">
                <span className="import-column-name">{f.key}</span>
                <span className="import-field-values">
                  {f.count} value{f.count === 1 ? '' : 's'}
                  {f.values.length > 0 &&
                    `: ${f.values.slice(0, 5).join(', ')}${f.values.length > 5 ? ', …' : ''}`}
                </span>
              </div>
              <label className="field">
                <span className="field-label">What becomes of “{f.key}”</span>
                <select
                  className="field-input"
                  value={value}
                  onChange={(e) => {
                    const v = e.target.value;
                    if (v === 'create')
                      onChange(f.key, { action: 'create', type: f.guessedType, name: f.name });
                    else if (v === 'skip') onChange(f.key, { action: 'skip' });
                    else onChange(f.key, { action: 'map', fieldId: v.slice(4) });
                  }}
                >
                  {mayCreate && <option value="create">Create a new field</option>}
                  {existing.map((x) => (
                    <option key={x.id} value={`map:${x.id}`}>
                      Into “{x.name}”
                    </option>
                  ))}
                  <option value="skip">Leave out</option>
                </select>
              </label>
              {c.action === 'create' && (
                <div className="import-field-new">
                  <label className="field">
                    <span className="field-label">Name</span>
                    <input
                      className="field-input"
                      value={c.name ?? ''}
                      onChange={(e) => onChange(f.key, { ...c, name: e.target.value })}
                    />
                  </label>
                  <label className="field">
                    <span className="field-label">Type</span>
                    <select
                      className="field-input"
                      value={c.type ?? f.guessedType}
                      onChange={(e) => onChange(f.key, { ...c, type: e.target.value as FieldChoice['type'] })}
                    >
                      {TYPES.map(([t, name]) => (
                        <option key={t} value={t}>
                          {name}
                        </option>
                      ))}
                    </select>
                  </label>
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}
