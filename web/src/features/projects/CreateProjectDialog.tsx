import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { isApiError } from '../../api/client';
import { queryKeys } from '../../api/keys';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { RichTextField } from '../../components/rich-text/RichText';
import { TextField } from '../../components/TextField';
import { createProject } from './api';

/** Creates a project; the API's field errors are shown under the field they concern. */
export function CreateProjectDialog({
  isOpen,
  onOpenChange,
}: {
  isOpen: boolean;
  onOpenChange: (o: boolean) => void;
}) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  // The rich-text editor is not a form control: its HTML is kept here.
  const [description, setDescription] = useState('');
  const mutation = useMutation({
    mutationFn: createProject,
    onSuccess: async (_created, body) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.projects() });
      onOpenChange(false);
      await navigate({ to: '/project/$code', params: { code: body.code.toUpperCase() } });
    },
    onError: (e) => {
      const fields = isApiError(e) ? e.fieldErrors() : {};
      setFieldErrors(fields);
      setFormError(Object.keys(fields).length ? undefined : e instanceof Error ? e.message : String(e));
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    setFieldErrors({});
    setFormError(undefined);
    mutation.mutate({
      // Codes are shown and compared in capitals (WEB-12); send them as shown.
      code: text('code').toUpperCase(),
      title: text('title'),
      ...(description ? { overviewDescription: description } : {}),
    });
  }

  return (
    <Dialog
      title="New project"
      isOpen={isOpen}
      onOpenChange={(open) => {
        if (!open) {
          setFieldErrors({});
          setFormError(undefined);
          setDescription('');
          mutation.reset();
        }
        onOpenChange(open);
      }}
      isDismissable={!mutation.isPending}
    >
      <Form onSubmit={submit} validationErrors={fieldErrors} className="form">
        {formError && (
          <p className="form-error" role="alert">
            {formError}
          </p>
        )}
        <TextField label="Title" name="title" isRequired autoFocus maxLength={255} />
        <TextField
          label="Code"
          name="code"
          isRequired
          description="2 to 5 letters or digits; it prefixes every test case (e.g. WEB-12)."
          maxLength={5}
          className="field-code"
        />
        <RichTextField
          label="Description (optional)"
          value={description}
          onChange={setDescription}
          error={fieldErrors.overviewDescription}
        />
        <div className="dialog-actions">
          <Button slot="close" isDisabled={mutation.isPending} onPress={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" isPending={mutation.isPending}>
            Create project
          </Button>
        </div>
      </Form>
    </Dialog>
  );
}
