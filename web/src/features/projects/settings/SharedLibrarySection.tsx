import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { Dialog } from '../../../components/Dialog';
import { SafeHtml } from '../../../components/rich-text/SafeHtml';
import { EmptyState, ErrorState, Loading } from '../../../components/Status';
import { sentence } from '../../../lib/useForm';
import type { Project } from '../api';
import {
  deleteSharedItem,
  sharedPreconditionLibraryQuery,
  sharedStepLibraryQuery,
  type SharedKind,
} from './api';
import { casesWord, NOUN, UserList, type LibraryItem } from './library-parts';
import { SharedItemEditor } from './SharedItemEditor';

/** A query of either library, as one list of items tagged with their kind. */
function useLibrary(code: string, kind: SharedKind) {
  const steps = useQuery({ ...sharedStepLibraryQuery(code), enabled: kind === 'step' });
  const pres = useQuery({ ...sharedPreconditionLibraryQuery(code), enabled: kind === 'precondition' });
  const q = kind === 'step' ? steps : pres;
  const items: LibraryItem[] | undefined =
    kind === 'step'
      ? steps.data?.map((s) => ({ ...s, kind: 'step' as const }))
      : pres.data?.map((p) => ({ ...p, kind: 'precondition' as const }));
  return { q, items };
}

/**
 * The project's library of shared steps or shared preconditions: what test cases use by reference, so an edit
 * here changes every case that uses it (the editor lists them before saving). Test runners and up (D3).
 */
export function SharedLibrarySection({ project, kind }: { project: Project; kind: SharedKind }) {
  const code = project.code;
  const { q, items } = useLibrary(code, kind);
  // undefined: the list; null: a new item; an item: editing it.
  const [editing, setEditing] = useState<LibraryItem | null>();
  const [deleting, setDeleting] = useState<LibraryItem>();
  const noun = NOUN[kind];
  if (q.isPending || !items) return <Loading label={`Loading the ${noun}s…`} />;
  if (q.isError)
    return (
      <ErrorState title={`The ${noun}s could not be loaded.`} error={q.error} onRetry={() => q.refetch()} />
    );
  if (editing !== undefined)
    return <SharedItemEditor code={code} kind={kind} item={editing} onDone={() => setEditing(undefined)} />;

  const editable = !project.archivedAt;
  return (
    <>
      <p className="muted settings-lede">
        {kind === 'step'
          ? 'A shared step is a titled list of sub-steps that many test cases include; change it once here and every case that uses it shows the change.'
          : 'A shared precondition is a text that many test cases start from; change it once here and every case that uses it shows the change.'}
      </p>
      {editable && (
        <p>
          <Button variant="primary" onPress={() => setEditing(null)}>
            New {noun}
          </Button>
        </p>
      )}
      {items.length === 0 ? (
        <EmptyState title={`No ${noun}s yet.`}>
          <p>Create one here; the test case editor then offers it.</p>
        </EmptyState>
      ) : (
        <ul
          className="library-list"
          aria-label={`${kind === 'step' ? 'Shared steps' : 'Shared preconditions'}`}
        >
          {items.map((item) => (
            <li key={item.id} className="library-row">
              <div className="library-head">
                <h3 className="library-title">{item.title}</h3>
                {editable && (
                  <div className="row-actions">
                    <Button aria-label={`Edit ${item.title}`} onPress={() => setEditing(item)}>
                      Edit
                    </Button>
                    <Button aria-label={`Delete ${item.title}`} onPress={() => setDeleting(item)}>
                      Delete…
                    </Button>
                  </div>
                )}
              </div>
              <ItemContent item={item} />
              <UsedBy code={code} item={item} />
            </li>
          ))}
        </ul>
      )}
      {deleting && <DeleteDialog code={code} item={deleting} onClose={() => setDeleting(undefined)} />}
    </>
  );
}

function ItemContent({ item }: { item: LibraryItem }) {
  if (item.kind === 'precondition') return <SafeHtml html={item.text} />;
  return (
    <ol className="library-substeps">
      {item.subSteps.map((s) => (
        <li key={s.id}>
          <SafeHtml html={s.description} />
          {s.expected && (
            <div className="library-expected">
              <span className="muted">Expected: </span>
              <SafeHtml html={s.expected} />
            </div>
          )}
        </li>
      ))}
    </ol>
  );
}

/** "Used by N test cases", opening to the list of them (read when opened). */
function UsedBy({ code, item }: { code: string; item: LibraryItem }) {
  const [open, setOpen] = useState(false);
  const n = item.tcaseCount ?? 0;
  if (n === 0) return <p className="muted library-used">Used by no test case.</p>;
  return (
    <details className="library-used" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Used by {casesWord(n)}</summary>
      {open && <UserList code={code} kind={item.kind} id={item.id} />}
    </details>
  );
}

function DeleteDialog({ code, item, onClose }: { code: string; item: LibraryItem; onClose: () => void }) {
  const queryClient = useQueryClient();
  const n = item.tcaseCount ?? 0;
  const noun = NOUN[item.kind];
  const remove = useMutation({
    mutationFn: () => deleteSharedItem(code, item.kind, item.id),
    onSuccess: onClose,
    onSettled: () =>
      queryClient.invalidateQueries({
        queryKey: item.kind === 'step' ? queryKeys.sharedSteps(code) : queryKeys.sharedPreconditions(code),
      }),
  });
  if (n > 0)
    return (
      <Dialog title={`${item.title} is in use`} isOpen onOpenChange={(o) => !o && onClose()}>
        <p>
          {casesWord(n)} use this {noun}, so it cannot be deleted: change them to stop using it first.
        </p>
        <UserList code={code} kind={item.kind} id={item.id} />
        <div className="dialog-actions">
          <Button slot="close" variant="primary">
            Close
          </Button>
        </div>
      </Dialog>
    );
  return (
    <ConfirmDialog
      title={`Delete ${item.title}?`}
      onClose={onClose}
      confirmLabel={`Delete ${noun}`}
      onConfirm={() => remove.mutate()}
      isPending={remove.isPending}
      error={remove.isError ? sentence(remove.error.message) : undefined}
    >
      <p>
        The {noun} “{item.title}” leaves the library; no test case uses it. Old versions of cases that used it
        still show it.
      </p>
    </ConfirmDialog>
  );
}
