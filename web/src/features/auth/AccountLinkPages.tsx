import { useState, type FormEvent, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { isApiError } from '../../api/client';
import { queryKeys } from '../../api/keys';
import { Button } from '../../components/Button';
import { Loading } from '../../components/Status';
import { TextField } from '../../components/TextField';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { invitationQuery, register, requestPasswordReset, setNewPassword, signIn } from './api';

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
function splitErrors(e: unknown): { form?: string; fields: Record<string, string> } {
  if (!isApiError(e)) return { form: sentence(e), fields: {} };
  const fields = e.fieldErrors();
  if (fields.token || Object.keys(fields).length === 0) return { form: sentence(e), fields: {} };
  return { fields };
}

const MIN_PASSWORD = 8;

function NewPasswordFields({
  password,
  setPassword,
  confirm,
  setConfirm,
}: {
  password: string;
  setPassword: (v: string) => void;
  confirm: string;
  setConfirm: (v: string) => void;
}) {
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
        onChange={setPassword}
      />
      <TextField
        label="Repeat the password"
        name="confirm"
        type="password"
        autoComplete="new-password"
        isRequired
        value={confirm}
        onChange={setConfirm}
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
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<string>();
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

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

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setFormError(undefined);
    setFieldErrors({});
    try {
      await register(token, name.trim(), password);
      await signIn({ email, password });
      await queryClient.invalidateQueries({ queryKey: queryKeys.me() });
      await navigate({ to: '/', replace: true });
    } catch (e) {
      const { form, fields } = splitErrors(e);
      setFormError(form);
      setFieldErrors(fields);
    } finally {
      setBusy(false);
    }
  }

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
      {formError && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <Form onSubmit={submit} validationErrors={fieldErrors} className="form">
        <TextField
          label="Your name"
          name="name"
          autoComplete="name"
          isRequired
          autoFocus
          value={name}
          onChange={setName}
        />
        <NewPasswordFields {...{ password, setPassword, confirm, setConfirm }} />
        <Button type="submit" variant="primary" isPending={busy} className="btn-block">
          {busy ? 'Creating your account…' : 'Create account'}
        </Button>
      </Form>
    </AuthCard>
  );
}

export function RequestPasswordResetPage() {
  useDocumentTitle('Reset your password');
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  const [formError, setFormError] = useState<string>();
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setFormError(undefined);
    setFieldErrors({});
    try {
      await requestPasswordReset(email.trim());
      setSent(true);
    } catch (e) {
      const { form, fields } = splitErrors(e);
      setFormError(form);
      setFieldErrors(fields);
    } finally {
      setBusy(false);
    }
  }

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
      {formError && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <Form onSubmit={submit} validationErrors={fieldErrors} className="form">
        <TextField
          label="E-mail"
          name="email"
          type="email"
          autoComplete="username"
          isRequired
          autoFocus
          value={email}
          onChange={setEmail}
        />
        <Button type="submit" variant="primary" isPending={busy} className="btn-block">
          {busy ? 'Sending…' : 'Send the reset link'}
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
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [formError, setFormError] = useState<string>();
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setFormError(undefined);
    setFieldErrors({});
    try {
      await setNewPassword(token, password);
      setDone(true);
    } catch (e) {
      const { form, fields } = splitErrors(e);
      setFormError(form);
      setFieldErrors(fields);
    } finally {
      setBusy(false);
    }
  }

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
      {formError && (
        <div className="form-error" role="alert">
          <p>{formError}</p>
          <p>
            <Link to="/reset-password">Ask for a new link</Link>
          </p>
        </div>
      )}
      <Form onSubmit={submit} validationErrors={fieldErrors} className="form">
        <NewPasswordFields {...{ password, setPassword, confirm, setConfirm }} />
        <Button type="submit" variant="primary" isPending={busy} className="btn-block">
          {busy ? 'Saving…' : 'Set the password'}
        </Button>
      </Form>
    </AuthCard>
  );
}
