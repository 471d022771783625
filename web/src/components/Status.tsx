import type { ReactNode } from 'react';
import { isApiError } from '../api/client';
import { Button } from './Button';

/**
 * Whether asking again could go differently: the service's own refusals (no such thing, no access, a bad address)
 * stay the same, while a failed connection, a timeout, a rate limit or a server error may pass.
 */
const mayPassOnRetry = (error: unknown) =>
  !isApiError(error) || error.status >= 500 || error.status === 408 || error.status === 429;

/** Loading says what it is waiting for, to sighted and screen-reader users alike. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="status-loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

/**
 * What failed, the service's words for why, "Try again" where trying again could help, and `children`: the way
 * out (a link to the list the missing thing would be in).
 */
export function ErrorState({
  title,
  error,
  onRetry,
  children,
}: {
  title: string;
  error: unknown;
  onRetry?: () => void;
  children?: ReactNode;
}) {
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  return (
    <div className="status-error" role="alert">
      <p className="status-title">{title}</p>
      <p>{message}</p>
      {(onRetry && mayPassOnRetry(error)) || children ? (
        <div className="status-actions">
          {onRetry && mayPassOnRetry(error) && <Button onPress={onRetry}>Try again</Button>}
          {children}
        </div>
      ) : null}
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
