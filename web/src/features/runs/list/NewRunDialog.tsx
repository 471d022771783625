import { useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { FormError } from '../../../components/FormError';
import { SelectField } from '../../../components/SelectField';
import { TextField } from '../../../components/TextField';
import { shownFieldErrorsOf, useForm } from '../../../lib/useForm';
import { configurationsQuery, milestonesQuery } from '../../../api/queries';
import { createRun, projectAssignableQuery, type CreateRunBody, type QueryPlan } from '../api';
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
  const assignable = useQuery(projectAssignableQuery(code));
  const [milestoneId, setMilestoneId] = useState('');
  const [configurationId, setConfigurationId] = useState('');
  const [assignmentId, setAssignmentId] = useState('');
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
    errors: shownFieldErrorsOf(['title', 'milestoneId', 'configurationId', 'assignmentId', 'dueAt']),
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
        ...(text('dueAt') ? { dueAt: text('dueAt') } : {}),
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
          <SelectField
            label="Milestone"
            name="milestoneId"
            value={milestoneId}
            onChange={(v) => {
              setMilestoneId(v);
              form.fieldChanged('milestoneId');
            }}
            placeholder="None"
            options={(milestones.data?.milestones ?? [])
              .filter((m) => !m.archivedAt)
              .map((m) => ({ value: String(m.id), label: m.title }))}
            error={form.fieldErrors.milestoneId}
          />
          <SelectField
            label="Configuration"
            name="configurationId"
            value={configurationId}
            onChange={(v) => {
              setConfigurationId(v);
              form.fieldChanged('configurationId');
            }}
            placeholder="None"
            options={(configurations.data?.configurations ?? []).map((c) => ({
              value: c.id,
              label: c.title,
            }))}
            error={form.fieldErrors.configurationId}
          />
          {/* Only the people the server accepts: active, above viewer, able to open the project. */}
          <SelectField
            label="Assignee"
            name="assignmentId"
            value={assignmentId}
            onChange={(v) => {
              setAssignmentId(v);
              form.fieldChanged('assignmentId');
            }}
            placeholder="Nobody"
            options={(assignable.data ?? []).map((u) => ({ value: String(u.id), label: u.name }))}
            error={form.fieldErrors.assignmentId}
          />
          <TextField label="Due date" name="dueAt" type="date" description="Optional." />
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
