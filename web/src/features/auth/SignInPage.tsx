import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { isApiError } from '../../api/client';
import { queryKeys } from '../../api/keys';
import { Button } from '../../components/Button';
import { TextField } from '../../components/TextField';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { safeReturnTo } from '../../session/session';
import { signIn } from './api';

type Step = 'password' | 'second-factor';

/** The service asks for the second factor with a 401 whose detail names the `totp` field. */
const asksForSecondFactor = (e: unknown) =>
  isApiError(e, 401) && (e.body.details ?? []).some((d) => d.path === '/totp');

function describe(e: unknown): string {
  if (isApiError(e, 429)) {
    const minutes = e.retryAfterSeconds ? Math.max(1, Math.ceil(e.retryAfterSeconds / 60)) : undefined;
    return minutes
      ? `Too many attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`
      : 'Too many attempts. Try again later.';
  }
  if (isApiError(e)) return e.message.charAt(0).toUpperCase() + e.message.slice(1) + '.';
  return 'The service could not be reached. Check your connection and try again.';
}

export function SignInPage() {
  useDocumentTitle('Sign in');
  const { returnTo } = useSearch({ from: '/sign-in' });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [step, setStep] = useState<Step>('password');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<string>();
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setFormError(undefined);
    setFieldErrors({});
    try {
      const secondFactor =
        step === 'second-factor' ? (useRecovery ? { recoveryCode: code.trim() } : { totp: code.trim() }) : {};
      await signIn({ email, password, ...secondFactor });
      await queryClient.invalidateQueries({ queryKey: queryKeys.me() });
      await navigate({ to: safeReturnTo(returnTo) ?? '/', replace: true });
    } catch (e) {
      if (step === 'password' && asksForSecondFactor(e)) {
        setStep('second-factor');
      } else if (step === 'second-factor' && isApiError(e, 401) && asksForSecondFactor(e)) {
        setFieldErrors({ code: 'That code is not valid. Check your authenticator and try again.' });
      } else {
        setFormError(describe(e));
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="auth-page">
      <div className="auth-card">
        <p className="brand auth-brand">
          <span className="brand-mark" aria-hidden="true" />
          Casebook
        </p>
        <h1 className="auth-title">{step === 'password' ? 'Sign in' : 'Two-factor check'}</h1>
        {step === 'second-factor' && (
          <p className="auth-lede">
            {useRecovery
              ? 'Enter one of the recovery codes you saved when you set up two-factor sign-in.'
              : 'Enter the 6-digit code from your authenticator app.'}
          </p>
        )}
        {formError && (
          <p className="form-error" role="alert">
            {formError}
          </p>
        )}
        <Form onSubmit={submit} validationErrors={fieldErrors} className="form">
          {step === 'password' ? (
            <>
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
              <TextField
                label="Password"
                name="password"
                type="password"
                autoComplete="current-password"
                isRequired
                value={password}
                onChange={setPassword}
              />
            </>
          ) : (
            <TextField
              key={useRecovery ? 'recovery' : 'totp'}
              label={useRecovery ? 'Recovery code' : 'Authentication code'}
              name="code"
              autoComplete="one-time-code"
              inputMode={useRecovery ? 'text' : 'numeric'}
              isRequired
              autoFocus
              value={code}
              onChange={(value) => {
                setCode(value);
                // A server error blocks the form's native validation until it is cleared: a new code clears it.
                setFieldErrors({});
              }}
            />
          )}
          <Button type="submit" variant="primary" isPending={busy} className="btn-block">
            {busy ? 'Signing in…' : step === 'password' ? 'Sign in' : 'Verify'}
          </Button>
          {step === 'password' && (
            <div className="auth-links">
              <Link to="/reset-password">Forgot your password?</Link>
            </div>
          )}
          {step === 'second-factor' && (
            <div className="auth-links">
              <Button
                variant="ghost"
                onPress={() => {
                  setUseRecovery(!useRecovery);
                  setCode('');
                  setFieldErrors({});
                }}
              >
                {useRecovery ? 'Use the authenticator code' : 'Use a recovery code'}
              </Button>
              <Button
                variant="ghost"
                onPress={() => {
                  setStep('password');
                  setCode('');
                  setFormError(undefined);
                }}
              >
                Back
              </Button>
            </div>
          )}
        </Form>
      </div>
    </main>
  );
}
