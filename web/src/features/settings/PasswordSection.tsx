import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Button } from '../../components/Button';
import { FormError } from '../../components/FormError';
import { TextField } from '../../components/TextField';
import { useForm } from '../../lib/useForm';
import { Saved } from './parts';
import { changeMyPassword } from './api';

/** A new password; every other session and device sign-in of the account ends with it. */
export function PasswordSection() {
  const [saved, setSaved] = useState<string>();
  const form = useForm({
    initial: { currentPassword: '', newPassword: '' },
    submit: async (body) => {
      setSaved(undefined);
      await changeMyPassword(body.currentPassword, body.newPassword);
      form.reset();
      setSaved('Password changed. Your other sessions and device sign-ins have ended.');
    },
  });
  return (
    <section className="panel" aria-labelledby="password">
      <h2 id="password" className="panel-title">
        Password
      </h2>
      <p className="muted">
        Changing your password signs you out everywhere else: your other sessions and device sign-ins (such as
        the command-line tool) end. You stay signed in here.
      </p>
      <FormError message={form.formError} />
      <Form className="form" validationErrors={form.fieldErrors} onSubmit={form.handleSubmit}>
        <TextField
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          isRequired
          value={form.values.currentPassword}
          onChange={(v) => form.set('currentPassword', v)}
        />
        <TextField
          label="New password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          isRequired
          minLength={8}
          description="At least 8 characters."
          value={form.values.newPassword}
          onChange={(v) => form.set('newPassword', v)}
        />
        <div className="form-row">
          <Button type="submit" variant="primary" isPending={form.submitting}>
            Change password
          </Button>
          <Saved message={saved} />
        </div>
      </Form>
    </section>
  );
}
