import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { listPageQuery, type RepositoryWrites } from '../api';
import { subtreeIds, type FolderNode } from '../folder-tree';

/** Says exactly what goes (subfolders and test cases, counted) before anything does. */
export function DeleteFolderDialog({
  code,
  folder,
  writes,
  onDone,
}: {
  code: string;
  folder: FolderNode;
  writes: RepositoryWrites;
  onDone: (deleted: boolean) => void;
}) {
  const ids = subtreeIds(folder);
  const cases = useQuery(listPageQuery(code, { folders: ids, sortField: 'id', sortOrder: 'asc' }, 0));
  const subfolders = ids.length - 1;
  const total = cases.data?.total;
  const [error, setError] = useState<string>();
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return (
    <ConfirmDialog
      title={`Delete folder “${folder.title}”?`}
      onClose={() => onDone(false)}
      confirmLabel="Delete folder"
      onConfirm={() =>
        writes.deleteFolder.mutate(folder.id, {
          onSuccess: () => onDone(true),
          onError: (e) => setError(e.message),
        })
      }
      isPending={writes.deleteFolder.isPending}
      isDisabled={total === undefined}
      error={error}
    >
      <p>
        {total === undefined
          ? 'Counting what it holds…'
          : subfolders === 0 && total === 0
            ? 'The folder is empty. Nothing else goes with it.'
            : `This also deletes ${plural(subfolders, 'subfolder', 'subfolders')} and ${plural(total, 'test case', 'test cases')} in it. Runs keep the results of those cases.`}
      </p>
    </ConfirmDialog>
  );
}
