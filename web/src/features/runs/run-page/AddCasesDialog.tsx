import { useDeferredValue, useId, useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { queryKeys } from '../../../api/keys';
import { formatCount } from '../../../lib/format';
import { addRunCases, pickableCasesQuery } from '../api';
import { FolderPicker } from '../list/FolderPicker';
import '../../../components/run-lists/runs-list.css';

const casesWord = (n: number) => `${formatCount(n)} ${n === 1 ? 'case' : 'cases'}`;

/**
 * "Add cases" of an open static_struct run: the repository's cases a run can take, narrowed by title and by
 * folders chosen in the new-run dialog's tree (a folder with its subfolders), each case a checkbox; the cases
 * already in the run are shown ticked and cannot be picked again. Only the ticked cases are added.
 */
export function AddCasesDialog({
  code,
  runId,
  isOpen,
  inRun,
  onClose,
  onAdded,
}: {
  code: string;
  runId: number;
  isOpen: boolean;
  inRun: ReadonlySet<string>;
  onClose: () => void;
  onAdded: (message: string) => void;
}) {
  const id = useId();
  const queryClient = useQueryClient();
  const [term, setTerm] = useState('');
  const [folderIds, setFolderIds] = useState<number[]>([]);
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const search = useDeferredValue(term.trim());
  // A chosen folder stands for its whole subtree, as in the tree it is picked from (the query asks recursively).
  const found = useQuery({
    ...pickableCasesQuery(code, search, folderIds),
    enabled: isOpen,
    placeholderData: keepPreviousData,
  });
  const reset = () => {
    setTerm('');
    setFolderIds([]);
    setPicked(new Set());
    add.reset();
  };
  const add = useMutation({
    mutationFn: () => addRunCases(code, runId, [...picked]),
    onSuccess: async (res) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.runCases(code, runId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.run(code, runId), exact: true }),
      ]);
      onAdded(`${casesWord(res.added ?? picked.size)} added to the run.`);
      reset();
      onClose();
    },
  });
  const close = () => {
    reset();
    onClose();
  };
  const cases = found.data?.data ?? [];
  return (
    <Dialog
      title="Add cases to the run"
      isOpen={isOpen}
      onOpenChange={(open) => !open && close()}
      isDismissable={!add.isPending}
    >
      <form
        className="form add-cases"
        onSubmit={(e) => {
          e.preventDefault();
          if (picked.size > 0) add.mutate();
        }}
      >
        <label className="field" htmlFor={`${id}-search`}>
          <span className="field-label">Title contains</span>
          <input
            id={`${id}-search`}
            type="search"
            className="field-input"
            value={term}
            autoFocus
            onChange={(e) => setTerm(e.target.value)}
          />
        </label>
        <div className="add-cases-columns">
          <div className="add-cases-folders">
            <span className="field-label">Folders (with their subfolders)</span>
            <FolderPicker
              code={code}
              label="Folders (with their subfolders)"
              chosen={folderIds}
              onChange={setFolderIds}
            />
          </div>
          <div className="add-cases-found">
            <span id={`${id}-cases`} className="field-label">
              Matching cases
            </span>
            <div
              className="plan-scroll add-cases-list"
              role="group"
              aria-labelledby={`${id}-cases`}
              aria-busy={found.isFetching}
            >
              {found.isPending ? (
                <p className="muted">Searching…</p>
              ) : found.isError ? (
                <p className="field-error">The cases could not be searched: {found.error.message}</p>
              ) : cases.length === 0 ? (
                <p className="muted">
                  {search ? `No case title contains “${search}” here.` : 'No test cases here.'}
                </p>
              ) : (
                cases.map((c) => {
                  const already = inRun.has(c.id);
                  return (
                    <label key={c.id} className="plan-option plan-case">
                      <input
                        type="checkbox"
                        checked={already || picked.has(c.id)}
                        disabled={already}
                        onChange={() =>
                          setPicked((all) => {
                            const next = new Set(all);
                            if (next.has(c.id)) next.delete(c.id);
                            else next.add(c.id);
                            return next;
                          })
                        }
                      />
                      <span className="project-code">
                        {code}-{c.seq}
                      </span>{' '}
                      {c.title}
                      {already && <span className="muted"> (in the run)</span>}
                    </label>
                  );
                })
              )}
              {(found.data?.total ?? 0) > cases.length && (
                <p className="muted">
                  {formatCount(found.data!.total - cases.length)} more match: choose a folder or type more of
                  the title.
                </p>
              )}
            </div>
          </div>
        </div>
        {add.isError && (
          <p className="form-error" role="alert">
            {add.error instanceof Error ? add.error.message : 'The cases could not be added.'}
          </p>
        )}
        <div className="dialog-actions">
          <Button onPress={close} isDisabled={add.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" isPending={add.isPending} isDisabled={picked.size === 0}>
            {picked.size === 0 ? 'Add cases' : `Add ${casesWord(picked.size)}`}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
