import { useId, type ReactNode } from 'react';
import { ASSIGNABLE_ROLES, ROLE_NAMES, type Role } from './api';

/** A native select of the roles one may give, with its error beside it. */
export function RoleSelect({
  label,
  value,
  onChange,
  error,
  isDisabled,
  hideLabel,
  action,
}: {
  label: string;
  value: Role;
  onChange: (role: Role) => void;
  error?: string;
  isDisabled?: boolean;
  hideLabel?: boolean;
  /** Beside the select (the row's Save button). */
  action?: ReactNode;
}) {
  const id = useId();
  return (
    <div className="field people-role-field">
      <label className={hideLabel ? 'visually-hidden' : 'field-label'} htmlFor={id}>
        {label}
      </label>
      <div className="people-role-control">
        <select
          id={id}
          className="field-input"
          value={value}
          disabled={isDisabled}
          aria-describedby={error ? `${id}-err` : undefined}
          aria-invalid={error ? true : undefined}
          onChange={(e) => onChange(e.target.value as Role)}
        >
          {ASSIGNABLE_ROLES.map((r) => (
            <option key={r} value={r}>
              {ROLE_NAMES[r]}
            </option>
          ))}
        </select>
        {action}
      </div>
      {error && (
        <span id={`${id}-err`} className="field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
