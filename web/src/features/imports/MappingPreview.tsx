import { useId } from 'react';
import type { CustomField } from './api';
import { BASE_FIELDS, type Preview } from './mapping';

/**
 * A generic CSV's columns, each with the field it fills (guessed, editable), then the first rows as they will be
 * imported: one column per mapped field, in the fields' order.
 */
export function MappingPreview({
  preview,
  mapping,
  customFields,
  error,
  onChange,
}: {
  preview: Preview;
  mapping: string[];
  customFields: CustomField[];
  error?: string;
  onChange: (column: number, field: string) => void;
}) {
  const id = useId();
  const fields: [string, string][] = [
    ...BASE_FIELDS,
    ...customFields.map((f): [string, string] => [`customField:${f.systemName}`, `Custom field: ${f.name}`]),
  ];
  const nameOf = new Map(fields);
  // The preview's columns: each mapped field once, in the order of the list above.
  const shown = fields
    .map(([field]) => [field, mapping.indexOf(field)] as const)
    .filter(([, col]) => col >= 0);
  return (
    <fieldset
      className="import-fieldset import-mapping"
      aria-describedby={error ? `${id}-err` : `${id}-desc`}
    >
      <legend className="field-label">Column mapping</legend>
      <p id={`${id}-desc`} className="field-description">
        Each column of the file fills one field of the test cases; columns set to “Not imported” are left out.
      </p>
      <div className="import-columns">
        {preview.headers.map((h, i) => (
          <label key={i} className="field">
            <span className="field-label import-column-name">{h || `Column ${i + 1}`}</span>
            <select
              className="field-input"
              value={mapping[i] ?? ''}
              aria-invalid={error ? true : undefined}
              onChange={(e) => {
                const field = e.target.value;
                // One column per field: the column that had it before gives it up.
                const other = field ? mapping.indexOf(field) : -1;
                if (other >= 0 && other !== i) onChange(other, '');
                onChange(i, field);
              }}
            >
              <option value="">Not imported</option>
              {fields.map(([v, name]) => (
                <option key={v} value={v}>
                  {name}
                </option>
              ))}
            </select>
          </label>
        ))}
      </div>
      {error && (
        <span id={`${id}-err`} className="field-error" role="alert">
          {error}
        </span>
      )}
      <div className="import-table-wrap" tabIndex={0} role="region" aria-labelledby={`${id}-cap`}>
        <table className="import-table">
          <caption id={`${id}-cap`}>
            {preview.rows.length
              ? `The first ${preview.rows.length === 1 ? 'row' : `${preview.rows.length} rows`} as they will be imported`
              : 'The file has a header row and no test cases'}
          </caption>
          <thead>
            <tr>
              <th scope="col">{preview.lines ? 'Row' : 'Line'}</th>
              {shown.map(([field]) => (
                <th key={field} scope="col">
                  {nameOf.get(field)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {preview.rows.map((row, r) => (
              <tr key={r}>
                <td>{preview.lines?.[r] ?? r + 2}</td>
                {shown.map(([field, col]) => (
                  <td key={field} className="import-cell">
                    {row[col] ?? ''}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </fieldset>
  );
}
