import type { AuditActionInfo } from './api';

/**
 * The Action filter: a list of every action the service records, by area, in words with the name beside; one or
 * several may be chosen (Ctrl or Shift with a click or the arrows, or a tap on a phone). A filter the list cannot
 * name (from a shared link, or an action this version no longer records) stays chosen as it came.
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
  /** The chosen actions, comma-separated (as the address carries them). */
  value: string;
  actions: AuditActionInfo[] | undefined;
  onChange: (value: string) => void;
}) {
  const chosen = value
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const known = new Set((actions ?? []).map((a) => a.action));
  const unlisted = chosen.filter((a) => !known.has(a));
  const areas = new Map<string, AuditActionInfo[]>();
  for (const a of actions ?? []) areas.set(a.area, [...(areas.get(a.area) ?? []), a]);
  return (
    <select
      id={id}
      multiple
      size={8}
      className="field-input audit-action-picker"
      value={chosen}
      aria-describedby={describedBy}
      aria-invalid={invalid ? true : undefined}
      onChange={(e) => onChange([...e.target.selectedOptions].map((o) => o.value).join(','))}
    >
      {unlisted.map((a) => (
        <option key={a} value={a}>
          {a}
        </option>
      ))}
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
