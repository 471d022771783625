import type { ReactNode } from 'react';
import { Button } from './Button';

/** Loading says what it is waiting for, to sighted and screen-reader users alike. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="status-loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function ErrorState({
  title,
  error,
  onRetry,
}: {
  title: string;
  error: unknown;
  onRetry?: () => void;
}) {
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  return (
    <div className="status-error" role="alert">
      <p className="status-title">{title}</p>
      <p>{message}</p>
      {onRetry && <Button onPress={onRetry}>Try again</Button>}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="status-empty">
      <p className="status-title">{title}</p>
      {children}
    </div>
  );
}
