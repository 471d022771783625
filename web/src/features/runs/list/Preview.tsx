import { useDeferredValue, useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { previewQuery, type QueryPlan } from '../api';
import { formatCount } from '../../../lib/format';
import { projectFoldersQuery } from '../../../api/queries';
import { FolderPath } from '../../../components/FolderPath';
import { folderPaths } from '../../../lib/folder-path';

/** What the plans select, from the preview endpoint (run creation's own selection code). */
export function Preview({ code, type, plans }: { code: string; type: string; plans: QueryPlan[] }) {
  // The preview follows the builder a beat behind: typing fast sends one request, not one per click.
  const deferred = useDeferredValue(plans);
  const preview = useQuery({ ...previewQuery(code, type, deferred), placeholderData: (prev) => prev });
  const folders = useQuery(projectFoldersQuery(code));
  const paths = useMemo(() => folderPaths(folders.data ?? []), [folders.data]);
  if (preview.isError)
    return (
      <p className="form-error" role="alert">
        {preview.error instanceof Error ? preview.error.message : 'The preview failed.'}
      </p>
    );
  const p = preview.data;
  return (
    <section className="run-preview" aria-label="Preview" aria-live="polite" aria-busy={preview.isFetching}>
      <p className="run-preview-total">
        {p ? (
          <>
            <strong data-testid="preview-total">{formatCount(p.total)}</strong>{' '}
            {p.total === 1 ? 'case' : 'cases'} selected
          </>
        ) : (
          'Counting…'
        )}
      </p>
      {p && p.tcases.length > 0 && (
        <ul className="run-preview-list">
          {p.tcases.map((c) => (
            <li key={c.id}>
              <span className="project-code">
                {code.toUpperCase()}-{c.seq}
              </span>{' '}
              {c.title} <span className="muted">·</span>{' '}
              <FolderPath className="muted" path={paths.get(c.folder.id) ?? [c.folder.title]} max={40} />
            </li>
          ))}
          {p.total > p.tcases.length && <li className="muted">…and {p.total - p.tcases.length} more</li>}
        </ul>
      )}
    </section>
  );
}
