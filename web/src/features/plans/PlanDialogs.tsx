import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { isApiError } from '../../api/client';
import { queryKeys } from '../../api/keys';
import { milestonesQuery } from '../../api/queries';
import { Button } from '../../components/Button';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Dialog } from '../../components/Dialog';
import { FormError } from '../../components/FormError';
import { RichTextField } from '../../components/rich-text/RichText';
import { SelectField } from '../../components/SelectField';
import { ErrorState, Loading } from '../../components/Status';
import { TextField } from '../../components/TextField';
import { formatCount, formatCountOf } from '../../lib/format';
import { plainFormErrorsOf, sentence, useForm } from '../../lib/useForm';
import { addPlanRuns, closePlan, updatePlan, type PlanWithRuns } from './api';
import { newDraftRun, planRunErrorsOf, PlanRunsFields, toPlanRuns, type DraftRun } from './PlanRunsFields';

/** Everything that shows a plan or its runs is read again after a change to it. */
const useRefresh = (code: string) => {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.plans(code) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.runs(code) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.milestones(code) }),
    ]);
};

/** The service's refusal of a description (its length is all it checks) in the dialog's words. */
function descriptionError(message: string): string {
  const max = /more than (\d+) characters/.exec(message)?.[1];
  return max
    ? `The description is too long: it holds at most ${formatCount(Number(max))} characters, its formatting counted. Shorten it and save again.`
    : sentence(message);
}

/**
 * Edits a plan's title, description and milestone (its runs follow the milestone). A title the milestone's plans
 * already have (409) is said under the title; a description or milestone refused under its field. A refused save
 * keeps everything typed.
 */
export function EditPlanDialog({
  code,
  plan,
  isOpen,
  onClose,
}: {
  code: string;
  plan: PlanWithRuns;
  isOpen: boolean;
  onClose: () => void;
}) {
  const refresh = useRefresh(code);
  const milestones = useQuery({ ...milestonesQuery(code), enabled: isOpen });
  const [milestoneId, setMilestoneId] = useState(String(plan.milestoneId ?? ''));
  // The editor is not a form control: its HTML is kept here until the form is sent (undefined: not touched).
  const [description, setDescription] = useState<string>();
  const save = useMutation({
    mutationFn: (body: Parameters<typeof updatePlan>[2]) => updatePlan(code, plan.id, body),
    onSuccess: async () => {
      await refresh();
      onClose();
    },
  });
  const form = useForm({
    errors: (e) => {
      if (isApiError(e) && e.status === 409) return { fields: { title: e.message } };
      const read = plainFormErrorsOf(e);
      const { description: refused } = read.fields;
      return refused ? { ...read, fields: { ...read.fields, description: descriptionError(refused) } } : read;
    },
    submit: (_values, data) => {
      const title = String(data?.get('title') ?? '').trim();
      const chosen = milestoneId ? Number(milestoneId) : null;
      const body = {
        ...(title !== plan.title ? { title } : {}),
        ...(description !== undefined && description !== plan.description ? { description } : {}),
        ...(chosen !== (plan.milestoneId ?? null) ? { milestoneId: chosen } : {}),
      };
      // Nothing changed: nothing to send.
      if (Object.keys(body).length === 0) {
        onClose();
        return Promise.resolve();
      }
      return save.mutateAsync(body);
    },
  });
  const close = () => {
    form.clearErrors();
    setMilestoneId(String(plan.milestoneId ?? ''));
    setDescription(undefined);
    onClose();
  };
  return (
    <Dialog
      title={`Edit “${plan.title}”`}
      isOpen={isOpen}
      onOpenChange={(o) => !o && close()}
      isDismissable={!save.isPending}
    >
      {milestones.isError ? (
        <ErrorState
          title="The milestones to choose from could not be loaded."
          error={milestones.error}
          onRetry={() => milestones.refetch()}
        />
      ) : milestones.isPending ? (
        <Loading label="Loading the milestones…" />
      ) : (
        <Form {...form.formProps} className="form">
          <FormError message={form.formError} />
          <TextField
            label="Title"
            name="title"
            isRequired
            autoFocus
            maxLength={255}
            defaultValue={plan.title}
          />
          <RichTextField
            label="Description"
            value={description ?? plan.description}
            onChange={(html) => {
              setDescription(html);
              form.fieldChanged('description');
            }}
            error={form.fieldErrors.description}
          />
          <SelectField
            label="Milestone"
            value={milestoneId}
            onChange={(v) => {
              setMilestoneId(v);
              form.fieldChanged('milestoneId');
            }}
            error={form.fieldErrors.milestoneId}
            placeholder="None"
            options={milestones.data.milestones
              // An archived milestone stays listed only when the plan is in it (keeping it is allowed).
              .filter((m) => !m.archivedAt || m.id === plan.milestoneId)
              .map((m) => ({ value: String(m.id), label: m.archivedAt ? `${m.title} (archived)` : m.title }))}
          />
          <p className="muted field-description">The plan's runs are filed under its milestone too.</p>
          <div className="dialog-actions">
            <Button isDisabled={save.isPending} onPress={close}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" isPending={save.isPending}>
              Save
            </Button>
          </div>
        </Form>
      )}
    </Dialog>
  );
}

/** Adds runs to an open plan, built as a new plan's runs; refusals are said above the runs. */
export function AddRunsDialog({
  code,
  plan,
  isOpen,
  onClose,
}: {
  code: string;
  plan: PlanWithRuns;
  isOpen: boolean;
  onClose: () => void;
}) {
  const refresh = useRefresh(code);
  const first = () => [newDraftRun(plan.runs.length + 1)];
  const [runs, setRuns] = useState<DraftRun[]>(first);
  const save = useMutation({
    mutationFn: async () => addPlanRuns(code, plan.id, await toPlanRuns(code, runs)),
    onSuccess: async () => {
      await refresh();
      setRuns(first());
      onClose();
    },
  });
  const form = useForm({
    submit: () => save.mutateAsync(),
    errors: planRunErrorsOf,
  });
  const close = () => {
    form.clearErrors();
    setRuns(first());
    onClose();
  };
  return (
    <Dialog
      title={`Add runs to “${plan.title}”`}
      isOpen={isOpen}
      onOpenChange={(o) => !o && close()}
      isDismissable={!save.isPending}
    >
      <form className="form new-run-form" onSubmit={form.handleSubmit}>
        <FormError message={form.formError} />
        <PlanRunsFields
          code={code}
          runs={runs}
          onChange={setRuns}
          errors={form.fieldErrors}
          onFieldChange={form.fieldChanged}
        />
        <div className="dialog-actions">
          <Button isDisabled={save.isPending} onPress={close}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" isPending={save.isPending}>
            {runs.length === 1 ? 'Add run' : `Add ${runs.length} runs`}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

/** Closes a plan after a confirmation that says how many open runs close with it. */
export function ClosePlanDialog({
  code,
  plan,
  isOpen,
  onClose,
}: {
  code: string;
  plan: PlanWithRuns;
  isOpen: boolean;
  onClose: () => void;
}) {
  const refresh = useRefresh(code);
  const open = plan.runs.filter((r) => !r.closedAt).length;
  const close = useMutation({
    mutationFn: () => closePlan(code, plan.id),
    onSuccess: async () => {
      await refresh();
      onClose();
    },
  });
  return (
    <ConfirmDialog
      title={`Close “${plan.title}”?`}
      isOpen={isOpen}
      onClose={() => {
        close.reset();
        onClose();
      }}
      confirmLabel={open === 0 ? 'Close plan' : `Close plan and ${formatCountOf(open, 'run')}`}
      onConfirm={() => close.mutate()}
      isPending={close.isPending}
      error={
        close.isError
          ? close.error instanceof Error
            ? close.error.message
            : 'The plan could not be closed.'
          : undefined
      }
    >
      <p>
        {open === 0
          ? 'Every run of this plan is closed already; the plan closes too.'
          : `This closes ${formatCountOf(open, 'open run')} of the plan with it.`}{' '}
        A closed plan and its runs are read-only: no result, run or change can be added. This cannot be
        undone.
      </p>
    </ConfirmDialog>
  );
}
