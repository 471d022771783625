import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { isApiError } from '../../api/client';
import { Button } from '../../components/Button';
import { FormError } from '../../components/FormError';
import { TextField } from '../../components/TextField';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { useForm, type FormErrors } from '../../lib/useForm';
import { safeReturnTo } from '../../session/session';
import { PROVIDER_SIGN_IN_ERRORS, providerSignInHref, signIn, signInProvidersQuery } from './api';
import { queryKeys } from '../../api/keys';

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
  const { returnTo, error, sso } = useSearch({ from: '/sign-in' });
  const listed = useQuery(signInProvidersQuery()).data;
  const providers = listed?.providers ?? [];
  // Provider only: the password form is the owner's break-glass, behind a link.
  const [ownerSignIn, setOwnerSignIn] = useState(false);
  const passwordHidden = listed?.passwordSignIn === 'owners' && !ownerSignIn;
  // A deep link to one provider goes on to it, unless it just came back from there with an error to show.
  const deepLink = !error ? providers.find((p) => p.id === sso) : undefined;
  useEffect(() => {
    if (deepLink) window.location.assign(providerSignInHref(deepLink.startUrl, returnTo));
  }, [deepLink, returnTo]);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [step, setStep] = useState<Step>('password');
  const [useRecovery, setUseRecovery] = useState(false);
  const form = useForm({
    initial: { email: '', password: '', code: '' },
    submit: async ({ email, password, code }) => {
      const secondFactor =
        step === 'second-factor' ? (useRecovery ? { recoveryCode: code.trim() } : { totp: code.trim() }) : {};
      try {
        await signIn({ email, password, ...secondFactor });
      } catch (e) {
        // Not a refusal: the password was right and the service asks for the second factor next.
        if (step === 'password' && asksForSecondFactor(e)) return setStep('second-factor');
        throw e;
      }
      await queryClient.invalidateQueries({ queryKey: queryKeys.me() });
      await navigate({ to: safeReturnTo(returnTo) ?? '/', replace: true });
    },
    errors: (e): FormErrors =>
      step === 'second-factor' && asksForSecondFactor(e)
        ? { fields: { code: 'That code is not valid. Check your authenticator and try again.' } }
        : { form: describe(e), fields: {} },
  });
  const { email, password, code } = form.values;
  const busy = form.submitting;

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
        <FormError message={form.formError ?? (error ? PROVIDER_SIGN_IN_ERRORS[error] : undefined)} />
        {step === 'password' && providers.length > 0 && (
          <nav aria-label="Sign in with your organisation" className="auth-providers">
            {providers.map((p) => (
              <a
                key={p.id}
                className="btn btn-secondary btn-block"
                href={providerSignInHref(p.startUrl, returnTo)}
              >
                Sign in with {p.name}
              </a>
            ))}
          </nav>
        )}
        {passwordHidden && (
          <div className="auth-links">
            <Button variant="ghost" onPress={() => setOwnerSignIn(true)}>
              Owner sign-in
            </Button>
          </div>
        )}
        <Form
          onSubmit={form.handleSubmit}
          validationErrors={form.fieldErrors}
          className="form"
          hidden={passwordHidden}
        >
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
                onChange={(v) => form.set('email', v)}
              />
              <TextField
                label="Password"
                name="password"
                type="password"
                autoComplete="current-password"
                isRequired
                value={password}
                onChange={(v) => form.set('password', v)}
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
                form.set('code', value);
                // A server error blocks the form's native validation until it is cleared: a new code clears it.
                form.clearErrors();
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
                  form.set('code', '');
                  form.clearErrors();
                }}
              >
                {useRecovery ? 'Use the authenticator code' : 'Use a recovery code'}
              </Button>
              <Button
                variant="ghost"
                onPress={() => {
                  setStep('password');
                  form.set('code', '');
                  form.clearErrors();
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
