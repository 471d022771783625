import { useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { FormError } from '../../../components/FormError';
import { TextField } from '../../../components/TextField';
import { plainFormErrorsOf, useForm } from '../../../lib/useForm';
import { configurationsQuery, milestonesQuery, usersQuery } from '../../../api/queries';
import { createRun, type CreateRunBody, type QueryPlan } from '../api';
import { PlanBuilder } from './PlanBuilder';
import { queryKeys } from '../../../api/keys';
import { Preview } from './Preview';

const TYPES = [
  ['static_struct', 'Static: these cases, each shown at its latest version'],
  ['static', 'Static, pinned: these cases at the version they have now'],
  ['live', 'Live: follows the repository (cases that match later join)'],
] as const;

/** Creates a run of any type from query plans built here, with the preview beside them. */
export function NewRunDialog({
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
  const [type, setType] = useState<CreateRunBody['type']>('static_struct');
  const [plans, setPlans] = useState<QueryPlan[]>([{}]);
  const milestones = useQuery(milestonesQuery(code));
  const configurations = useQuery(configurationsQuery(code));
  const users = useQuery(usersQuery());
  const mutation = useMutation({
    mutationFn: (body: CreateRunBody) => createRun(code, body),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.runs(code) });
      onOpenChange(false);
      await navigate({
        to: '/project/$code/run/$runId',
        params: { code: code.toUpperCase(), runId: String(created.id) },
      });
    },
  });
  // Live runs follow filters only (several plans); the others take one plan, by filters or picked cases.
  const plansFor = useMemo(
    () => (type === 'live' ? plans.map(({ tcaseIds: _picked, ...filters }) => filters) : plans.slice(0, 1)),
    [type, plans],
  );

  const form = useForm({
    errors: plainFormErrorsOf,
    submit: (_values, data) => {
      const text = (name: string) => String(data?.get(name) ?? '').trim();
      const num = (name: string) => (text(name) ? Number(text(name)) : undefined);
      return mutation.mutateAsync({
        title: text('title'),
        type,
        queryPlans: plansFor,
        ...(num('milestoneId') ? { milestoneId: num('milestoneId') } : {}),
        ...(text('configurationId') ? { configurationId: text('configurationId') } : {}),
        ...(num('assignmentId') ? { assignmentId: num('assignmentId') } : {}),
      });
    },
  });

  return (
    <Dialog title="New run" isOpen={isOpen} onOpenChange={onOpenChange} isDismissable={!mutation.isPending}>
      <Form {...form.formProps} className="form new-run-form">
        <FormError message={form.formError} />
        <TextField label="Title" name="title" isRequired autoFocus maxLength={255} />
        <fieldset className="plan-builder">
          <legend>Type</legend>
          {TYPES.map(([value, label]) => (
            <label key={value} className="plan-option plan-type">
              <input
                type="radio"
                name="type"
                value={value}
                checked={type === value}
                onChange={() => setType(value)}
              />
              {label}
            </label>
          ))}
        </fieldset>
        {plansFor.map((plan, i) => (
          <PlanBuilder
            key={i}
            code={code}
            index={i}
            plan={plan}
            allowPick={type !== 'live'}
            onChange={(p) => setPlans((all) => all.map((x, j) => (j === i ? p : x)))}
          />
        ))}
        {type === 'live' && (
          <Button variant="ghost" onPress={() => setPlans((all) => [...all, {}])}>
            Add another plan
          </Button>
        )}
        <Preview code={code} type={type} plans={plansFor} />
        <div className="new-run-selects">
          <label className="field">
            <span className="field-label">Milestone</span>
            <select name="milestoneId" className="field-input">
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
          <label className="field">
            <span className="field-label">Configuration</span>
            <select name="configurationId" className="field-input">
              <option value="">None</option>
              {(configurations.data?.configurations ?? []).map((c) => (
                <option key={c.id} value={c.id}>
                  {c.title}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span className="field-label">Assignee</span>
            <select name="assignmentId" className="field-input">
              <option value="">Nobody</option>
              {(users.data?.users ?? []).map((u) => (
                <option key={u.id} value={u.id}>
                  {u.name}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div className="dialog-actions">
          <Button slot="close" isDisabled={mutation.isPending} onPress={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" isPending={mutation.isPending}>
            Create run
          </Button>
        </div>
      </Form>
    </Dialog>
  );
}
