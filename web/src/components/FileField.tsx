import { formatBytes } from '../lib/format';

/**
 * A form's one file: the native picker (keyboard and screen readers know it), its label, and below it the error in
 * words or, without one, the chosen file's name and size, or `hint` before one is chosen. Cancelling the picker
 * keeps the file chosen before.
 */
export function FileField({
  id,
  label,
  accept,
  className,
  file,
  error,
  hint,
  onFile,
}: {
  id: string;
  label: string;
  accept: string;
  className?: string;
  file: File | undefined;
  error?: string;
  hint: string;
  onFile: (file: File) => void;
}) {
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        type="file"
        accept={accept}
        className={className ? `field-input ${className}` : 'field-input'}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-err` : `${id}-desc`}
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) onFile(f);
        }}
      />
      {error ? (
        <span id={`${id}-err`} className="field-error" role="alert">
          {error}
        </span>
      ) : (
        <span id={`${id}-desc`} className="field-description">
          {file ? `${file.name}, ${formatBytes(file.size)}` : hint}
        </span>
      )}
    </div>
  );
}
