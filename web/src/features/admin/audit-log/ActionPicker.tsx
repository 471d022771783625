import type { AuditActionInfo } from './api';

/**
 * The Action filter: every action the service records, by area, in words with the name beside. A filter the list
 * cannot name (several actions from a shared link, or one this version no longer records) stays chosen as typed.
 */
export function ActionPicker({
  id,
  describedBy,
  invalid,
  value,
  actions,
  onChange,
}: {
  id: string;
  describedBy?: string;
  invalid: boolean;
  value: string;
  actions: AuditActionInfo[] | undefined;
  onChange: (value: string) => void;
}) {
  const areas = new Map<string, AuditActionInfo[]>();
  for (const a of actions ?? []) areas.set(a.area, [...(areas.get(a.area) ?? []), a]);
  const listed = !value || (actions ?? []).some((a) => a.action === value);
  return (
    <select
      id={id}
      className="field-input"
      value={value}
      aria-describedby={describedBy}
      aria-invalid={invalid ? true : undefined}
      onChange={(e) => onChange(e.target.value)}
    >
      <option value="">Any action</option>
      {!listed && <option value={value}>{value.includes(',') ? `These actions: ${value}` : value}</option>}
      {[...areas].map(([area, list]) => (
        <optgroup key={area} label={area}>
          {list.map((a) => (
            <option key={a.action} value={a.action}>
              {a.label} ({a.action})
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  );
}
