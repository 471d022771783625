import { useId } from 'react';

/**
 * A labelled native select with its error in words beside it: the phone's own picker, the keyboard's own
 * behaviour (type to jump, arrows), and nothing to load.
 */
export function SelectField({
  label,
  value,
  onChange,
  options,
  error,
  name,
  placeholder,
  isDisabled,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: { value: string; label: string }[];
  error?: string;
  name?: string;
  /** The first, empty choice ("Choose…"), when nothing is chosen yet. */
  placeholder?: string;
  isDisabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <select
        id={id}
        name={name}
        className="field-input"
        value={value}
        disabled={isDisabled}
        aria-describedby={error ? `${id}-err` : undefined}
        aria-invalid={error ? true : undefined}
        onChange={(e) => onChange(e.target.value)}
      >
        {placeholder !== undefined && <option value="">{placeholder}</option>}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {error && (
        <span id={`${id}-err`} className="field-error">
          {error}
        </span>
      )}
    </div>
  );
}
