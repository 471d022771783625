import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { FormError } from '../../components/FormError';
import { queryKeys } from '../../api/keys';
import { formErrorsOf } from '../../lib/useForm';
import { deleteView, updateView, type SavedView, type ViewPage } from './api';
import { ViewForm } from './ViewForm';

type Mode = { kind: 'list' } | { kind: 'rename'; view: SavedView } | { kind: 'delete'; view: SavedView };

/**
 * The page's views with what may be done to each: rename (and share or keep private) and delete after a
 * confirmation. One dialog whose content changes, so the focus never leaves it.
 */
export function ManageViewsDialog({
  code,
  page,
  views,
  userId,
  canShare,
  isOpen,
  onOpenChange,
}: {
  code: string;
  page: ViewPage;
  views: SavedView[];
  userId: number | undefined;
  canShare: boolean;
  isOpen: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<Mode>({ kind: 'list' });
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.views(code, page) });
  const remove = useMutation({
    mutationFn: (view: SavedView) => deleteView(code, view.id),
    onSuccess: async () => {
      await refresh();
      setMode({ kind: 'list' });
    },
  });
  const openChange = (open: boolean) => {
    if (!open) {
      setMode({ kind: 'list' });
      remove.reset();
    }
    onOpenChange(open);
  };
  const title =
    mode.kind === 'rename'
      ? `Rename “${mode.view.name}”`
      : mode.kind === 'delete'
        ? `Delete “${mode.view.name}”?`
        : 'Saved views';

  return (
    <Dialog title={title} isOpen={isOpen} onOpenChange={openChange} isDismissable={!remove.isPending}>
      {mode.kind === 'rename' && (
        <ViewForm
          initial={{ name: mode.view.name, shared: mode.view.shared }}
          canShare={canShare}
          submitLabel="Save"
          onCancel={() => setMode({ kind: 'list' })}
          onSubmit={async (values) => {
            const change = {
              ...(values.name !== mode.view.name ? { name: values.name } : {}),
              ...(values.shared !== mode.view.shared ? { shared: values.shared } : {}),
            };
            // Nothing changed is nothing to send (the API refuses an empty change).
            if (Object.keys(change).length > 0) await updateView(code, mode.view.id, change);
            await refresh();
            setMode({ kind: 'list' });
          }}
        />
      )}
      {mode.kind === 'delete' && (
        <>
          <FormError message={remove.error ? formErrorsOf(remove.error).form : undefined} />
          <p>
            {mode.view.shared
              ? 'It is shared: nobody in the project will see it any more.'
              : 'Only you had it; it cannot be brought back.'}
          </p>
          <div className="dialog-actions">
            <Button
              autoFocus
              isDisabled={remove.isPending}
              onPress={() => {
                remove.reset();
                setMode({ kind: 'list' });
              }}
            >
              Cancel
            </Button>
            <Button variant="danger" isPending={remove.isPending} onPress={() => remove.mutate(mode.view)}>
              Delete view
            </Button>
          </div>
        </>
      )}
      {mode.kind === 'list' && (
        <>
          {views.length === 0 ? (
            <p className="muted">No saved views on this page.</p>
          ) : (
            <ul className="views-list" aria-label="Saved views">
              {views.map((v) => (
                <li key={v.id} className="views-row">
                  <span className="views-row-name">{v.name}</span>
                  <span className="muted views-row-meta">
                    {v.shared ? 'Shared' : 'Private'}
                    {v.owner.id !== userId ? ` · by ${v.owner.name}` : ''}
                  </span>
                  {v.editable && (
                    <span className="views-row-actions">
                      <Button
                        variant="ghost"
                        aria-label={`Rename ${v.name}`}
                        onPress={() => setMode({ kind: 'rename', view: v })}
                      >
                        Rename
                      </Button>
                      <Button
                        variant="ghost"
                        aria-label={`Delete ${v.name}`}
                        onPress={() => setMode({ kind: 'delete', view: v })}
                      >
                        Delete
                      </Button>
                    </span>
                  )}
                </li>
              ))}
            </ul>
          )}
          <div className="dialog-actions">
            <Button slot="close" autoFocus={views.length === 0}>
              Close
            </Button>
          </div>
        </>
      )}
    </Dialog>
  );
}
