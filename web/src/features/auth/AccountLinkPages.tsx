import { useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { isApiError } from '../../api/client';
import { Button } from '../../components/Button';
import { FormError } from '../../components/FormError';
import { Loading } from '../../components/Status';
import { TextField } from '../../components/TextField';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { useForm, type FormErrors } from '../../lib/useForm';
import { signIn, invitationQuery, register, requestPasswordReset, setNewPassword } from './api';
import { queryKeys } from '../../api/keys';

/** The pages reached from a link in an e-mail (or passed on by an admin): no session needed. */

function AuthCard({ title, lede, children }: { title: string; lede?: ReactNode; children: ReactNode }) {
  return (
    <main className="auth-page">
      <div className="auth-card">
        <p className="brand auth-brand">
          <span className="brand-mark" aria-hidden="true" />
          Casebook
        </p>
        <h1 className="auth-title">{title}</h1>
        {lede && <p className="auth-lede">{lede}</p>}
        {children}
      </div>
    </main>
  );
}

function sentence(e: unknown): string {
  if (isApiError(e, 429)) return 'Too many attempts. Try again in a few minutes.';
  if (isApiError(e)) return e.message.charAt(0).toUpperCase() + e.message.slice(1) + '.';
  return 'The service could not be reached. Check your connection and try again.';
}

/** Field errors keyed by body field; an error about the link itself is a form error (no field shows the token). */
function splitErrors(e: unknown): FormErrors {
  if (!isApiError(e)) return { form: sentence(e), fields: {} };
  const fields = e.fieldErrors();
  if (fields.token || Object.keys(fields).length === 0) return { form: sentence(e), fields: {} };
  return { fields };
}

const MIN_PASSWORD = 8;

/** The two password fields of a form that holds `password` and `confirm`. */
function NewPasswordFields({
  form,
}: {
  form: {
    values: { password: string; confirm: string };
    set: (name: 'password' | 'confirm', value: string) => void;
  };
}) {
  const { password, confirm } = form.values;
  return (
    <>
      <TextField
        label="New password"
        name="password"
        type="password"
        autoComplete="new-password"
        isRequired
        minLength={MIN_PASSWORD}
        description={`At least ${MIN_PASSWORD} characters.`}
        value={password}
        onChange={(v) => form.set('password', v)}
      />
      <TextField
        label="Repeat the password"
        name="confirm"
        type="password"
        autoComplete="new-password"
        isRequired
        value={confirm}
        onChange={(v) => form.set('confirm', v)}
        validate={(v) => (v && v !== password ? 'The two passwords differ.' : null)}
      />
    </>
  );
}

export function AcceptInvitationPage() {
  useDocumentTitle('Join Casebook');
  const { token } = useParams({ from: '/invite/$token' });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const invitation = useQuery(invitationQuery(token));
  const form = useForm({
    initial: { name: '', password: '', confirm: '' },
    errors: splitErrors,
    submit: async ({ name, password }) => {
      await register(token, name.trim(), password);
      await signIn({ email: invitation.data!.email, password });
      await queryClient.invalidateQueries({ queryKey: queryKeys.me() });
      await navigate({ to: '/', replace: true });
    },
  });

  if (invitation.isPending) return <Loading label="Checking the invitation…" />;
  if (invitation.isError)
    return (
      <AuthCard title="This invitation cannot be used">
        <p role="alert">
          {isApiError(invitation.error, 404)
            ? 'The link is invalid, has expired or was used already. Ask the person who invited you for a new one.'
            : sentence(invitation.error)}
        </p>
        <p>
          Have an account already? <Link to="/sign-in">Sign in</Link>.
        </p>
      </AuthCard>
    );

  const { email, role } = invitation.data;

  return (
    <AuthCard
      title="Join Casebook"
      lede={
        <>
          You were invited as <strong>{email}</strong> with the role <strong>{role}</strong>. Choose your name
          and a password to create your account.
        </>
      }
    >
      <FormError message={form.formError} />
      <Form onSubmit={form.handleSubmit} validationErrors={form.fieldErrors} className="form">
        <TextField
          label="Your name"
          name="name"
          autoComplete="name"
          isRequired
          autoFocus
          value={form.values.name}
          onChange={(v) => form.set('name', v)}
        />
        <NewPasswordFields form={form} />
        <Button type="submit" variant="primary" isPending={form.submitting} className="btn-block">
          {form.submitting ? 'Creating your account…' : 'Create account'}
        </Button>
      </Form>
    </AuthCard>
  );
}

export function RequestPasswordResetPage() {
  useDocumentTitle('Reset your password');
  const [sent, setSent] = useState(false);
  const form = useForm({
    initial: { email: '' },
    errors: splitErrors,
    submit: async ({ email }) => {
      await requestPasswordReset(email.trim());
      setSent(true);
    },
  });
  const email = form.values.email;

  if (sent)
    return (
      <AuthCard title="Check your e-mail">
        <p role="status">
          If <strong>{email.trim()}</strong> has an account here, a link to set a new password is on its way.
          It works once, within an hour. No e-mail? Ask your administrator for a reset link.
        </p>
        <p>
          <Link to="/sign-in">Back to sign-in</Link>
        </p>
      </AuthCard>
    );

  return (
    <AuthCard
      title="Reset your password"
      lede="Enter the e-mail address you sign in with. We send you a link to set a new password."
    >
      <FormError message={form.formError} />
      <Form onSubmit={form.handleSubmit} validationErrors={form.fieldErrors} className="form">
        <TextField
          label="E-mail"
          name="email"
          type="email"
          autoComplete="username"
          isRequired
          autoFocus
          value={email}
          onChange={(v) => form.set('email', v)}
        />
        <Button type="submit" variant="primary" isPending={form.submitting} className="btn-block">
          {form.submitting ? 'Sending…' : 'Send the reset link'}
        </Button>
        <div className="auth-links">
          <Link to="/sign-in">Back to sign-in</Link>
        </div>
      </Form>
    </AuthCard>
  );
}

export function SetNewPasswordPage() {
  useDocumentTitle('Set a new password');
  const { token } = useParams({ from: '/reset-password/$token' });
  const [done, setDone] = useState(false);
  const form = useForm({
    initial: { password: '', confirm: '' },
    errors: splitErrors,
    submit: async ({ password }) => {
      await setNewPassword(token, password);
      setDone(true);
    },
  });

  if (done)
    return (
      <AuthCard title="Your password is set">
        <p role="status">
          Sign in with your new password. Every session and device sign-in of your account has ended.
        </p>
        <p>
          <Link to="/sign-in" className="btn btn-primary btn-block">
            Sign in
          </Link>
        </p>
      </AuthCard>
    );

  return (
    <AuthCard
      title="Set a new password"
      lede="Setting a new password signs you out everywhere: every session and device sign-in of your account ends."
    >
      <FormError message={form.formError}>
        <p>
          <Link to="/reset-password">Ask for a new link</Link>
        </p>
      </FormError>
      <Form onSubmit={form.handleSubmit} validationErrors={form.fieldErrors} className="form">
        <NewPasswordFields form={form} />
        <Button type="submit" variant="primary" isPending={form.submitting} className="btn-block">
          {form.submitting ? 'Saving…' : 'Set the password'}
        </Button>
      </Form>
    </AuthCard>
  );
}
