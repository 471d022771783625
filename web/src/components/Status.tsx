import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { isTransient } from '../api/client';
import { Button } from './Button';

/**
 * When "Try again" was pressed: a query without data shows its loading state while it asks again, so the error
 * that may come back is a new one, and the button that had the focus is gone.
 */
let retriedAt: number | undefined;

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
  const retry = onRetry !== undefined && isTransient(error);
  const box = useRef<HTMLDivElement>(null);
  // An error that comes back from "Try again" (mounted anew, or this one without its button) takes the focus the
  // button had: its own "Try again", or the way out when asking again was refused for good.
  useLayoutEffect(() => {
    const el = box.current;
    const recent = retriedAt !== undefined && performance.now() - retriedAt < 60_000;
    retriedAt = undefined;
    if (!el || !recent || (document.activeElement && document.activeElement !== document.body)) return;
    (el.querySelector<HTMLElement>('a[href], button') ?? el).focus();
  }, [retry]);
  return (
    <div className="status-error" role="alert" ref={box} tabIndex={-1}>
      <p className="status-title">{title}</p>
      <p>{message}</p>
      {retry || children ? (
        <div className="status-actions">
          {retry && (
            <Button
              onPress={() => {
                retriedAt = performance.now();
                onRetry();
              }}
            >
              Try again
            </Button>
          )}
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
