import { useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { ErrorState, Loading } from '../../../components/Status';
import { queryKeys } from '../../../api/keys';
import { ApiError } from '../../../api/client';
import { assignRunCases, runAssignableQuery } from '../api';

export interface AssignTarget {
  tcaseIds: string[];
  /** What is assigned, in words: `PRJ-4` or `3 cases`. */
  label: string;
  /** The one case's assignee now (single case only). */
  current?: number | null;
  /** The selected cases: the selection is cleared once they are assigned. */
  fromSelection?: boolean;
}

/**
 * Assigns one case (from its row) or the selected cases to a person, or to nobody. The people are those the API
 * accepts (`…/assignable`); a refusal is said in the dialog, which keeps the choice.
 */
export function AssignDialog({
  code,
  runId,
  target,
  meId,
  onClose,
  onAssigned,
}: {
  code: string;
  runId: number;
  target: AssignTarget | undefined;
  meId: number | undefined;
  onClose: () => void;
  onAssigned: (message: string) => void;
}) {
  const id = useId();
  const queryClient = useQueryClient();
  const people = useQuery({ ...runAssignableQuery(code, runId), enabled: target !== undefined });
  // Until something is chosen: the case's assignee, else the signed-in person.
  const [chosen, setChoice] = useState<string>();
  const choice = chosen ?? (target?.current ? String(target.current) : meId ? String(meId) : '');
  // Optional: empty keeps each case's own due date (docs/api-decisions.md#due-dates).
  const [dueAt, setDueAt] = useState('');
  const assign = useMutation({
    mutationFn: (assigneeId: number | null) =>
      assignRunCases(
        code,
        runId,
        target!.tcaseIds,
        assigneeId,
        assigneeId === null ? undefined : dueAt || undefined,
      ),
    onSuccess: async (_res, assigneeId) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.runCases(code, runId) });
      const name = people.data?.find((p) => p.id === assigneeId)?.name;
      onAssigned(name ? `${target!.label} assigned to ${name}.` : `${target!.label} unassigned.`);
      close();
    },
  });
  // A refusal of the date is said under the date; any other under the assignee.
  const dueError = assign.error instanceof ApiError ? assign.error.fieldErrors().dueAt : undefined;
  const whoError = assign.isError && !dueError;
  const close = () => {
    setChoice(undefined);
    setDueAt('');
    assign.reset();
    onClose();
  };
  return (
    <Dialog
      title={`Assign ${target?.label ?? ''}`}
      isOpen={target !== undefined}
      onOpenChange={(open) => !open && close()}
      isDismissable={!assign.isPending}
    >
      {people.isPending && <Loading label="Loading the people…" />}
      {people.isError && (
        <ErrorState
          title="The people to choose from could not be loaded."
          error={people.error}
          onRetry={() => people.refetch()}
        />
      )}
      {people.isSuccess && (
        <form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            assign.mutate(choice ? Number(choice) : null);
          }}
        >
          <label className="field" htmlFor={`${id}-who`}>
            <span className="field-label">Assignee</span>
            <select
              id={`${id}-who`}
              className="field-input"
              value={choice}
              autoFocus
              aria-describedby={whoError ? `${id}-error` : undefined}
              onChange={(e) => setChoice(e.target.value)}
            >
              <option value="">Nobody</option>
              {people.data.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.id === meId ? `${p.name} (me)` : p.name}
                </option>
              ))}
            </select>
          </label>
          {whoError && (
            <p className="field-error" id={`${id}-error`} role="alert">
              {assign.error instanceof Error ? assign.error.message : 'The cases could not be assigned.'}
            </p>
          )}
          {choice && (
            <label className="field" htmlFor={`${id}-due`}>
              <span className="field-label">Due date</span>
              <input
                id={`${id}-due`}
                type="date"
                className="field-input"
                value={dueAt}
                aria-invalid={dueError ? true : undefined}
                aria-describedby={dueError ? `${id}-due-error` : `${id}-due-hint`}
                onChange={(e) => setDueAt(e.target.value)}
              />
              {dueError && (
                <span className="field-error" id={`${id}-due-error`} role="alert">
                  {dueError}
                </span>
              )}
              <span className="field-description" id={`${id}-due-hint`}>
                Optional. Empty keeps each case’s own due date.
              </span>
            </label>
          )}
          <div className="dialog-actions">
            <Button onPress={close} isDisabled={assign.isPending}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" isPending={assign.isPending}>
              {choice ? 'Assign' : 'Unassign'}
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
