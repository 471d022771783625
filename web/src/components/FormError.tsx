import type { ReactNode } from 'react';

/** A form's error that belongs to no one field, above the form, announced when it appears. */
export function FormError({ message, children }: { message?: string; children?: ReactNode }) {
  if (!message) return null;
  return children ? (
    <div className="form-error" role="alert">
      <p>{message}</p>
      {children}
    </div>
  ) : (
    <p className="form-error" role="alert">
      {message}
    </p>
  );
}
