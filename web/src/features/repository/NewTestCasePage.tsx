import './tcase.css';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { foldersQuery } from './api';
import { emptyDraft } from './draft';
import { EditSession } from './editor/EditSession';

/** `/project/{CODE}/tcase/new?folder=<id>`: a new case in that folder (the `n` shortcut comes here). */
export function NewTestCasePage() {
  const { code } = useParams({ from: '/app/project/$code/tcase/new' });
  const { folder } = useSearch({ from: '/app/project/$code/tcase/new' });
  const navigate = useNavigate();
  const folders = useQuery({ ...foldersQuery(code), enabled: folder === undefined });
  useDocumentTitle(`New test case · ${code.toUpperCase()}`);

  const back = () => navigate({ to: '/project/$code', params: { code } });
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
  return (
    <div className="page page-narrow">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/project/$code/repository" params={{ code }}>
          Test cases
        </Link>
      </nav>
      <EditSession
        code={code}
        initial={emptyDraft(folderId)}
        target={{ kind: 'new' }}
        heading="New test case"
        onSaved={(seq) =>
          void navigate({
            to: '/project/$code/tcase/$seq',
            params: { code, seq: String(seq) },
            replace: true,
          })
        }
        onCancel={() => void back()}
      />
    </div>
  );
}
