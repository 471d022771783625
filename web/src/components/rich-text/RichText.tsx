import { lazy, Suspense, useId } from 'react';
import type { RichTextEditorProps } from './RichTextEditor';
import './rich-text.css';

// The editor (TipTap + ProseMirror) loads the first time an HTML field is edited.
const Editor = lazy(() => import('./RichTextEditor'));

/** A labelled HTML field; its API error (if any) is shown in words right under it. */
export function RichTextField({
  label,
  error,
  hideLabel,
  ...props
}: Omit<RichTextEditorProps, 'invalid' | 'describedBy'> & { error?: string; hideLabel?: boolean }) {
  const id = useId();
  return (
    <div className="field">
      <span className={hideLabel ? 'visually-hidden' : 'field-label'} aria-hidden="true">
        {label}
      </span>
      <Suspense
        fallback={
          <div className="rte rte-loading" role="status">
            Loading the editor…
          </div>
        }
      >
        <Editor {...props} label={label} invalid={!!error} describedBy={error ? `${id}-err` : undefined} />
      </Suspense>
      {error && (
        <p id={`${id}-err`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
