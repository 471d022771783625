import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { FormError } from '../../components/FormError';
import { RichTextField } from '../../components/rich-text/RichText';
import { TextField } from '../../components/TextField';
import { plainFormErrorsOf, useForm } from '../../lib/useForm';
import { createProject } from './api';
import { queryKeys } from '../../api/keys';

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
  // The rich-text editor is not a form control: its HTML is kept here.
  const [description, setDescription] = useState('');
  const mutation = useMutation({
    mutationFn: createProject,
    onSuccess: async (_created, body) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.projects() });
      onOpenChange(false);
      await navigate({ to: '/project/$code', params: { code: body.code.toUpperCase() } });
    },
  });
  const form = useForm({
    errors: plainFormErrorsOf,
    submit: (_values, data) => {
      const text = (name: string) => String(data?.get(name) ?? '').trim();
      return mutation.mutateAsync({
        // Codes are shown and compared in capitals (WEB-12); send them as shown.
        code: text('code').toUpperCase(),
        title: text('title'),
        ...(description ? { overviewDescription: description } : {}),
      });
    },
  });

  return (
    <Dialog
      title="New project"
      isOpen={isOpen}
      onOpenChange={(open) => {
        if (!open) {
          form.reset();
          setDescription('');
          mutation.reset();
        }
        onOpenChange(open);
      }}
      isDismissable={!mutation.isPending}
    >
      <Form {...form.formProps} className="form">
        <FormError message={form.formError} />
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
          error={form.fieldErrors.overviewDescription}
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
