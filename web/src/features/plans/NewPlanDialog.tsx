import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { queryKeys } from '../../api/keys';
import { milestonesQuery } from '../../api/queries';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { FormError } from '../../components/FormError';
import { useForm } from '../../lib/useForm';
import { createPlan } from './api';
import { newDraftRun, planRunErrorsOf, PlanRunsFields, toPlanRuns, type DraftRun } from './PlanRunsFields';
import '../../components/run-lists/runs-list.css';

/** A plan of several runs, each with its own title, assignee, configuration and cases; its milestone chosen here. */
export function NewPlanDialog({
  code,
  isOpen,
  onOpenChange,
}: {
  code: string;
  isOpen: boolean;
  onOpenChange: (o: boolean) => void;
}) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [title, setTitle] = useState('');
  const [milestoneId, setMilestoneId] = useState('');
  const [runs, setRuns] = useState<DraftRun[]>([newDraftRun(1), newDraftRun(2)]);
  const milestones = useQuery({ ...milestonesQuery(code), enabled: isOpen });
  const save = useMutation({
    mutationFn: async () =>
      createPlan(code, {
        title: title.trim(),
        ...(milestoneId ? { milestoneId: Number(milestoneId) } : {}),
        runs: await toPlanRuns(code, runs),
      }),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.plans(code) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.runs(code) });
      onOpenChange(false);
      await navigate({ to: '/project/$code/plan/$planId', params: { code, planId: String(created.id) } });
    },
  });
  // A run's assignee or configuration refused is said beside it; every other refusal above the form.
  const form = useForm({
    submit: () => save.mutateAsync(),
    errors: planRunErrorsOf,
  });
  return (
    <Dialog title="New test plan" isOpen={isOpen} onOpenChange={onOpenChange} isDismissable={!save.isPending}>
      <form className="form new-run-form" onSubmit={form.handleSubmit}>
        <FormError message={form.formError} />
        <div className="new-run-selects">
          <label className="field">
            <span className="field-label">Plan title</span>
            <input
              className="field-input"
              required
              maxLength={255}
              value={title}
              onChange={(e) => setTitle(e.target.value)}
            />
          </label>
          <label className="field">
            <span className="field-label">Milestone</span>
            <select
              className="field-input"
              value={milestoneId}
              onChange={(e) => setMilestoneId(e.target.value)}
            >
              <option value="">None</option>
              {(milestones.data?.milestones ?? [])
                .filter((m) => !m.archivedAt)
                .map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.title}
                  </option>
                ))}
            </select>
          </label>
        </div>
        <PlanRunsFields
          code={code}
          runs={runs}
          onChange={setRuns}
          errors={form.fieldErrors}
          onFieldChange={form.fieldChanged}
        />
        <div className="dialog-actions">
          <Button isDisabled={save.isPending} onPress={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" isPending={save.isPending}>
            Create plan
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
