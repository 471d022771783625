import './tcase.css';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { foldersQuery, testCaseQuery } from './api';
import { copyDraft, emptyDraft, nextDraft, type Draft } from './draft';
import { EditSession } from './editor/EditSession';

/** What "Save and add another" leaves: the case just made, and the next editor's start. */
interface Another {
  /** Counts the editors, so each opens afresh (its title focused, nothing to discard). */
  n: number;
  saved: { seq: number; title: string };
  next: Draft;
}

/**
 * `/project/{CODE}/tcase/new?folder=<id>`: a new case in that folder (the `n` shortcut comes here);
 * `&copy=<seq>`: a duplicate of that case ("Duplicate" on a case and in the repository's row menu).
 */
export function NewTestCasePage() {
  const { code } = useParams({ from: '/app/project/$code/tcase/new' });
  const { folder, copy } = useSearch({ from: '/app/project/$code/tcase/new' });
  const navigate = useNavigate();
  const [another, setAnother] = useState<Another | null>(null);
  const folders = useQuery({ ...foldersQuery(code), enabled: folder === undefined && copy === undefined });
  const source = useQuery({ ...testCaseQuery(code, String(copy ?? 0)), enabled: copy !== undefined });
  const marker = (seq: number) => `${code.toUpperCase()}-${seq}`;
  useDocumentTitle(
    copy !== undefined && !another
      ? `Duplicate ${marker(copy)} · ${code.toUpperCase()}`
      : `New test case · ${code.toUpperCase()}`,
  );

  const back = () => navigate({ to: '/project/$code', params: { code } });
  let initial: Draft | undefined = another?.next;
  let heading = 'New test case';
  if (!initial && copy !== undefined) {
    if (source.isPending) return <Loading label={`Loading ${marker(copy)} to copy…`} />;
    if (source.isError)
      return (
        <div className="page">
          <ErrorState
            title={`Test case ${marker(copy)} could not be loaded to copy.`}
            error={source.error}
            onRetry={() => source.refetch()}
          />
        </div>
      );
    initial = copyDraft(source.data);
    heading = `Duplicate ${marker(copy)}`;
  }
  if (!initial) {
    let folderId = folder;
    if (folderId === undefined) {
      if (folders.isPending) return <Loading label="Loading the project's folders…" />;
      if (folders.isError)
        return (
          <div className="page">
            <ErrorState
              title="The folders could not be loaded."
              error={folders.error}
              onRetry={() => folders.refetch()}
            />
          </div>
        );
      // The tree's first folder, as the repository shows it: its first root folder (the list is by `pos` across
      // the tree, so a subfolder may come before it).
      folderId = (folders.data.find((f) => f.parentId === 0) ?? folders.data[0])?.id;
      if (folderId === undefined)
        return (
          <div className="page">
            <EmptyState title="This project has no folder yet.">
              <p>
                A test case lives in a folder: create one in the{' '}
                <Link to="/project/$code" params={{ code }}>
                  project
                </Link>{' '}
                first.
              </p>
            </EmptyState>
          </div>
        );
    }
    initial = emptyDraft(folderId);
  }
  return (
    <div className="page page-narrow">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/project/$code/repository" params={{ code }}>
          Test cases
        </Link>
      </nav>
      {/* Always in the page, so the announcement of a saved case is read out when it appears. */}
      <div role="status" className={another ? 'saved-another' : undefined}>
        {another && (
          <p>
            Created{' '}
            <Link to="/project/$code/tcase/$seq" params={{ code, seq: String(another.saved.seq) }}>
              {marker(another.saved.seq)} {another.saved.title}
            </Link>
            . Write the next case in the same folder below.
          </p>
        )}
      </div>
      <EditSession
        key={`${copy ?? folder ?? 'first'}-${another?.n ?? 0}`}
        code={code}
        initial={initial}
        target={{ kind: 'new' }}
        heading={heading}
        onSaved={(seq, saved) => {
          if (saved?.another && seq !== undefined) {
            setAnother((a) => ({
              n: (a?.n ?? 0) + 1,
              saved: { seq, title: saved.draft.title },
              next: nextDraft(saved.draft),
            }));
            // The address names the next case's start: its folder, no longer the case that was copied.
            if (copy !== undefined)
              void navigate({
                to: '/project/$code/tcase/new',
                params: { code },
                search: { folder: saved.draft.folderId },
                replace: true,
              });
            return;
          }
          void navigate({
            to: '/project/$code/tcase/$seq',
            params: { code, seq: String(seq) },
            replace: true,
          });
        }}
        onCancel={() => void back()}
      />
    </div>
  );
}
