import { useState } from 'react';
import { Form } from 'react-aria-components';
import { isApiError } from '../../../api/client';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { TextField } from '../../../components/TextField';
import type { RepositoryWrites } from '../api';
import type { FolderIndex, FolderNode } from '../folder-tree';

/** Names a new folder (at the top or in `parent`) or renames one; a name its siblings have is refused. */
export function FolderNameDialog({
  index,
  pending,
  writes,
  onDone,
}: {
  index: FolderIndex;
  pending: { kind: 'create'; parent?: FolderNode } | { kind: 'rename'; folder: FolderNode };
  writes: RepositoryWrites;
  onDone: (parentId?: number) => void;
}) {
  const renaming = pending.kind === 'rename';
  const [title, setTitle] = useState(renaming ? pending.folder.title : '');
  const [error, setError] = useState<string>();
  const busy = writes.createFolder.isPending || writes.editFolder.isPending;
  const parentPath = (parent?: FolderNode) => {
    const out: string[] = [];
    let n = parent;
    while (n) {
      out.unshift(n.title);
      n = n.parentId ? index.byId.get(n.parentId) : undefined;
    }
    return out;
  };
  const submit = () => {
    const name = title.trim();
    if (!name) return setError('Give the folder a name.');
    const onError = (e: Error) =>
      setError(
        isApiError(e, 409)
          ? `A folder named “${name}” is already there.`
          : (isApiError(e) && e.fieldErrors().title) || e.message,
      );
    if (renaming)
      writes.editFolder.mutate(
        { id: pending.folder.id, title: name },
        { onSuccess: () => onDone(), onError },
      );
    else {
      const parent = pending.parent;
      if (
        parent?.children.some((c) => c.title === name) ||
        (!parent && index.roots.some((r) => r.title === name))
      )
        return setError(`A folder named “${name}” is already there.`);
      writes.createFolder.mutate([...parentPath(parent), name], {
        onSuccess: () => onDone(parent?.id),
        onError,
      });
    }
  };
  return (
    <Dialog
      title={
        renaming
          ? `Rename “${pending.folder.title}”`
          : pending.parent
            ? `New folder in “${pending.parent.title}”`
            : 'New folder'
      }
      isOpen
      onOpenChange={(open) => !open && onDone()}
      isDismissable={!busy}
    >
      <Form
        validationErrors={error ? { title: error } : {}}
        validationBehavior="aria"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <TextField
          label="Folder name"
          name="title"
          value={title}
          onChange={(v) => {
            setTitle(v);
            setError(undefined);
          }}
          autoFocus
          maxLength={255}
        />
        <div className="dialog-actions">
          <Button slot="close" isDisabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" isDisabled={busy}>
            {renaming ? 'Rename' : 'Create folder'}
          </Button>
        </div>
      </Form>
    </Dialog>
  );
}
