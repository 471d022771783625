import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { FormError } from '../../../components/FormError';
import { SelectField } from '../../../components/SelectField';
import { ErrorState, Loading } from '../../../components/Status';
import { RichTextField } from '../../../components/rich-text/RichText';
import { TextField } from '../../../components/TextField';
import { shownFieldErrorsOf, useForm } from '../../../lib/useForm';
import { editRun, runAssignableQuery } from '../api';
import { milestonesQuery, type Run } from '../../../api/queries';
import { queryKeys } from '../../../api/keys';

/** Edits an open run's title, description, milestone, assignee and due date; the API's refusals are shown by the field they concern. */
export function EditRunDialog({
  code,
  run,
  onClose,
}: {
  code: string;
  run: Run | undefined;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  // Read when the dialog opens, not with every page that can open it; the form waits for them, since its
  // selects take their starting value once, at mount (a milestone not yet listed would show, and save, as none).
  const milestones = useQuery({ ...milestonesQuery(code), enabled: run !== undefined });
  const users = useQuery({ ...runAssignableQuery(code, run?.id ?? 0), enabled: run !== undefined });
  const [milestoneId, setMilestoneId] = useState('');
  const [assignmentId, setAssignmentId] = useState('');
  // The selects start from the run each time the dialog opens on one (closed: forgotten, so a cancelled choice goes).
  const [openedOn, setOpenedOn] = useState<number>();
  if (!run && openedOn !== undefined) setOpenedOn(undefined);
  if (run && openedOn !== run.id) {
    setOpenedOn(run.id);
    setMilestoneId(run.milestoneId ? String(run.milestoneId) : '');
    setAssignmentId(run.assignmentId ? String(run.assignmentId) : '');
  }
  // The editor is not a form control: its HTML is kept here until the form is sent.
  const [description, setDescription] = useState<string>();
  const save = useMutation({
    mutationFn: (body: Parameters<typeof editRun>[2]) => editRun(code, run!.id, body),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.runs(code) });
      setDescription(undefined);
      onClose();
    },
  });
  const form = useForm({
    errors: shownFieldErrorsOf(['title', 'description', 'milestoneId', 'assignmentId', 'dueAt']),
    submit: (_values, data) => {
      const value = (name: string) => String(data?.get(name) ?? '');
      // Only what changed is sent: an archived milestone the run keeps is not chosen again (which would be refused).
      const title = value('title').trim();
      const milestone = value('milestoneId') ? Number(value('milestoneId')) : null;
      const assignee = value('assignmentId') ? Number(value('assignmentId')) : null;
      const dueAt = value('dueAt') || null;
      return save.mutateAsync({
        ...(title !== run!.title ? { title } : {}),
        ...(description !== undefined && description !== run!.description ? { description } : {}),
        ...(milestone !== (run!.milestoneId ?? null) ? { milestoneId: milestone } : {}),
        ...(assignee !== (run!.assignmentId ?? null) ? { assignmentId: assignee } : {}),
        ...(dueAt !== (run!.dueAt ?? null) ? { dueAt } : {}),
      });
    },
  });
  return (
    <Dialog
      title={`Edit “${run?.title ?? ''}”`}
      isOpen={run !== undefined}
      onOpenChange={(o) => {
        if (o) return;
        setDescription(undefined);
        onClose();
      }}
      isDismissable={!save.isPending}
    >
      {run && (milestones.isError || users.isError) && (
        <ErrorState
          title="The milestones and people to choose from could not be loaded."
          error={milestones.error ?? users.error}
          onRetry={() => {
            void milestones.refetch();
            void users.refetch();
          }}
        />
      )}
      {run && (milestones.isPending || users.isPending) && <Loading label="Loading milestones and people…" />}
      {run && milestones.isSuccess && users.isSuccess && (
        <Form {...form.formProps} className="form">
          <FormError message={form.formError} />
          <TextField
            label="Title"
            name="title"
            isRequired
            autoFocus
            maxLength={255}
            defaultValue={run.title}
          />
          <RichTextField
            label="Description"
            value={description ?? run.description}
            onChange={setDescription}
            error={form.fieldErrors.description}
          />
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
              .filter((m) => !m.archivedAt || m.id === run.milestoneId)
              .map((m) => ({ value: String(m.id), label: m.title }))}
            error={form.fieldErrors.milestoneId}
          />
          {/* The people the server accepts, and the run's assignee even when no longer one of them (kept, not chosen). */}
          <SelectField
            label="Assignee"
            name="assignmentId"
            value={assignmentId}
            onChange={(v) => {
              setAssignmentId(v);
              form.fieldChanged('assignmentId');
            }}
            placeholder="Nobody"
            options={[
              ...(run.assignment && !(users.data ?? []).some((u) => u.id === run.assignmentId)
                ? [{ value: String(run.assignment.id), label: run.assignment.name }]
                : []),
              ...(users.data ?? []).map((u) => ({ value: String(u.id), label: u.name })),
            ]}
            error={form.fieldErrors.assignmentId}
          />
          <TextField
            label="Due date"
            name="dueAt"
            type="date"
            defaultValue={run.dueAt ?? ''}
            description="Leave it empty for no due date."
          />
          <div className="dialog-actions">
            <Button
              isDisabled={save.isPending}
              onPress={() => {
                setDescription(undefined);
                onClose();
              }}
            >
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
