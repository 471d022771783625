import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { FormError } from '../../../components/FormError';
import { ErrorState, Loading } from '../../../components/Status';
import { RichTextField } from '../../../components/rich-text/RichText';
import { TextField } from '../../../components/TextField';
import { plainFormErrorsOf, useForm } from '../../../lib/useForm';
import { editRun } from '../api';
import { milestonesQuery, usersQuery, type Run } from '../../../api/queries';
import { queryKeys } from '../../../api/keys';

/** Edits an open run's title, description, milestone and assignee; the API's refusals are shown by the field they concern. */
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
  const users = useQuery({ ...usersQuery(), enabled: run !== undefined });
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
    errors: plainFormErrorsOf,
    submit: (_values, data) => {
      const value = (name: string) => String(data?.get(name) ?? '');
      // Only what changed is sent: an archived milestone the run keeps is not chosen again (which would be refused).
      const title = value('title').trim();
      const milestoneId = value('milestoneId') ? Number(value('milestoneId')) : null;
      const assignmentId = value('assignmentId') ? Number(value('assignmentId')) : null;
      return save.mutateAsync({
        ...(title !== run!.title ? { title } : {}),
        ...(description !== undefined && description !== run!.description ? { description } : {}),
        ...(milestoneId !== (run!.milestoneId ?? null) ? { milestoneId } : {}),
        ...(assignmentId !== (run!.assignmentId ?? null) ? { assignmentId } : {}),
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
          <label className="field">
            <span className="field-label">Milestone</span>
            <select name="milestoneId" className="field-input" defaultValue={run.milestoneId ?? ''}>
              <option value="">None</option>
              {(milestones.data?.milestones ?? [])
                .filter((m) => !m.archivedAt || m.id === run.milestoneId)
                .map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.title}
                  </option>
                ))}
            </select>
          </label>
          <label className="field">
            <span className="field-label">Assignee</span>
            <select name="assignmentId" className="field-input" defaultValue={run.assignmentId ?? ''}>
              <option value="">Nobody</option>
              {(users.data?.users ?? []).map((u) => (
                <option key={u.id} value={u.id}>
                  {u.name}
                </option>
              ))}
            </select>
          </label>
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
