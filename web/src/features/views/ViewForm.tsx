import { Form } from 'react-aria-components';
import { isApiError } from '../../api/client';
import { Button } from '../../components/Button';
import { FormError } from '../../components/FormError';
import { TextField } from '../../components/TextField';
import { formErrorsOf, sentence, useForm, type FormErrors } from '../../lib/useForm';

/**
 * A name taken by another of one's views (409) is said under the name, where it is corrected; a refusal of
 * something the form does not show (the page's filters) above the form, in the service's words.
 */
function viewErrorsOf(e: unknown): FormErrors {
  if (isApiError(e, 409)) return { fields: { name: sentence(e.message) } };
  const errors = formErrorsOf(e);
  const { name, ...others } = errors.fields;
  if (Object.keys(others).length === 0) return errors;
  return { form: isApiError(e) ? sentence(e.message) : errors.form, fields: name ? { name } : {} };
}

export interface ViewFormValues {
  name: string;
  shared: boolean;
}

/** A view's name and whether it is shared: saving the current view and renaming one. */
export function ViewForm({
  initial,
  canShare,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial: ViewFormValues;
  canShare: boolean;
  submitLabel: string;
  onSubmit: (values: ViewFormValues) => Promise<unknown>;
  onCancel: () => void;
}) {
  const form = useForm<ViewFormValues>({
    initial,
    errors: viewErrorsOf,
    submit: (values) => onSubmit({ ...values, name: values.name.trim() }),
  });
  return (
    <Form {...form.formProps} className="form">
      <FormError message={form.formError} />
      <TextField
        label="Name"
        name="name"
        value={form.values.name}
        onChange={(v) => form.set('name', v)}
        isRequired
        autoFocus
        maxLength={100}
      />
      {canShare ? (
        <label className="checkbox-field">
          <input
            type="checkbox"
            name="shared"
            checked={form.values.shared}
            onChange={(e) => form.set('shared', e.target.checked)}
          />
          Share with everyone in the project
        </label>
      ) : (
        <p className="muted">Viewers keep their views private: only you will see it.</p>
      )}
      <div className="dialog-actions">
        <Button isDisabled={form.submitting} onPress={onCancel}>
          Cancel
        </Button>
        <Button type="submit" variant="primary" isPending={form.submitting}>
          {submitLabel}
        </Button>
      </div>
    </Form>
  );
}
