import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { TextField } from '../../components/TextField';
import { useForm, type FormErrors } from '../../lib/useForm';
import type { Selection } from './CaseList';
import { pathOf, type FolderIndex } from './folder-tree';
import { FolderPathOption } from '../../components/FolderPath';
import { useRepositoryWrites } from './api';
import { formatCountOf } from '../../lib/format';
import { AddToRunDialog, BulkEditDialog } from './BulkEdit';

/** The API takes up to 1,000 ids a request (BULK_TCASES_MAX): larger selections go in several. */
const BULK_MAX = 1000;
async function inChunks(ids: string[], run: (part: string[]) => Promise<unknown>) {
  for (let i = 0; i < ids.length; i += BULK_MAX) await run(ids.slice(i, i + BULK_MAX));
}

const cases = (n: number) => formatCountOf(n, 'test case');
const splitTags = (s: string) =>
  s
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

type Action = 'move' | 'tags' | 'delete';

export function BulkBar({
  code,
  index,
  selection,
}: {
  code: string;
  index: FolderIndex;
  selection: Selection;
}) {
  const [action, setAction] = useState<Action | 'edit' | 'run'>();
  const n = selection.ids.size;
  // A bulk edit's end: the cases it could not change stay selected, to try again or look at.
  const finished = (failed: string[] | null) => {
    if (failed) {
      selection.clear();
      if (failed.length) selection.setMany(failed, true);
    }
    setAction(undefined);
  };
  return (
    <div className="bulk-bar" role="region" aria-label="Selected test cases">
      <span className="bulk-count" aria-live="polite">
        {cases(n)} selected
      </span>
      <Button onPress={() => setAction('edit')}>Edit…</Button>
      <Button onPress={() => setAction('run')}>Add to run…</Button>
      <Button onPress={() => setAction('move')}>Move…</Button>
      <Button onPress={() => setAction('tags')}>Tags…</Button>
      <Button variant="danger" onPress={() => setAction('delete')}>
        Delete…
      </Button>
      <Button variant="ghost" onPress={selection.clear}>
        Clear selection
      </Button>
      {action === 'edit' && <BulkEditDialog code={code} ids={[...selection.ids]} onClose={finished} />}
      {action === 'run' && <AddToRunDialog code={code} ids={[...selection.ids]} onClose={finished} />}
      {action && action !== 'edit' && action !== 'run' && (
        <BulkDialog
          code={code}
          index={index}
          action={action}
          ids={[...selection.ids]}
          onClose={(done) => {
            if (done) selection.clear();
            setAction(undefined);
          }}
        />
      )}
    </div>
  );
}

function BulkDialog({
  code,
  index,
  action,
  ids,
  onClose,
}: {
  code: string;
  index: FolderIndex;
  action: Action;
  ids: string[];
  onClose: (done: boolean) => void;
}) {
  const writes = useRepositoryWrites(code);
  const [folderId, setFolderId] = useState(index.flat[0]?.id ?? 0);
  const [add, setAdd] = useState('');
  const [remove, setRemove] = useState('');
  const n = cases(ids.length);

  const run = async () => {
    if (action === 'tags' && !splitTags(add).length && !splitTags(remove).length)
      throw new Error('Name at least one tag to add or remove.');
    await inChunks(ids, (part) =>
      action === 'move'
        ? writes.bulkMove.mutateAsync({ tcaseIds: part, folderId })
        : action === 'tags'
          ? writes.bulkTags.mutateAsync({
              tcaseIds: part,
              addTags: splitTags(add).length ? splitTags(add) : undefined,
              removeTags: splitTags(remove).length ? splitTags(remove) : undefined,
            })
          : writes.bulkDelete.mutateAsync(part),
    );
    onClose(true);
  };
  const form = useForm({
    submit: run,
    // The tag dialog's only error is about the tags to add; the others' is about the whole action.
    errors: (e): FormErrors => {
      const message = e instanceof Error ? e.message : String(e);
      return action === 'tags' ? { fields: { addTags: message } } : { form: message, fields: {} };
    },
  });
  const busy = form.submitting;

  const title = action === 'move' ? `Move ${n}` : action === 'tags' ? `Tag ${n}` : `Delete ${n}?`;
  return (
    <Dialog title={title} isOpen onOpenChange={(open) => !open && onClose(false)} isDismissable={!busy}>
      <Form {...form.formProps} validationBehavior="aria">
        {action === 'move' && (
          <label className="field">
            <span className="field-label">To folder</span>
            <select
              className="field-input"
              value={folderId}
              onChange={(e) => setFolderId(Number(e.target.value))}
              autoFocus
            >
              {index.flat.map((f) => (
                <FolderPathOption key={f.id} value={f.id} path={pathOf(index, f.id).map((p) => p.title)} />
              ))}
            </select>
          </label>
        )}
        {action === 'tags' && (
          <>
            <TextField
              label="Add tags"
              name="addTags"
              description="Separate tags with commas; new ones are created."
              value={add}
              onChange={setAdd}
              autoFocus
            />
            <TextField label="Remove tags" name="removeTags" value={remove} onChange={setRemove} />
          </>
        )}
        {action === 'delete' && (
          <p>{n} will be deleted. Runs keep their results. This cannot be undone from here.</p>
        )}
        {form.formError && (
          <p className="field-error" role="alert">
            {form.formError}
          </p>
        )}
        <div className="dialog-actions">
          <Button slot="close" isDisabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant={action === 'delete' ? 'danger' : 'primary'} isDisabled={busy}>
            {action === 'move' ? `Move ${n}` : action === 'tags' ? `Tag ${n}` : `Delete ${n}`}
          </Button>
        </div>
      </Form>
    </Dialog>
  );
}
