import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { Button } from '../../components/Button';
import { FormError } from '../../components/FormError';
import { ErrorState, Loading } from '../../components/Status';
import { TextField } from '../../components/TextField';
import { useForm } from '../../lib/useForm';
import { twoFactorQuery, setUpTwoFactor, enableTwoFactor, disableTwoFactor } from './api';
import { CopyButton, Saved } from './parts';
import { queryKeys } from '../../api/keys';

function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <div className="recovery-codes">
      <p>
        <strong>Save these recovery codes now</strong> — they are shown only once. Each one signs you in once
        when you do not have your authenticator.
      </p>
      <ul aria-label="Recovery codes" className="code-grid">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <CopyButton text={codes.join('\n')} label="Copy the recovery codes" />
    </div>
  );
}

/** Turns two-factor sign-in on (password, then a code from the app) and off; recovery codes shown once. */
export function TwoFactorSection() {
  const queryClient = useQueryClient();
  const status = useQuery(twoFactorQuery);
  const [step, setStep] = useState<'idle' | 'password' | 'scan' | 'disable'>('idle');
  const [setup, setSetup] = useState<{ secret: string; otpauthUrl: string; qr: string }>();
  const [codes, setCodes] = useState<string[]>();
  const [saved, setSaved] = useState<string>();
  // One form at a time, by step: the password, then the code from the app (or both, to turn it off).
  const form = useForm({
    initial: { password: '', totp: '' },
    submit: (): Promise<void> => {
      setSaved(undefined);
      return step === 'password' ? begin() : step === 'scan' ? enable() : disable();
    },
  });
  const { password, totp } = form.values;
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.twoFactor() });
  const reset = () => {
    setStep('idle');
    form.reset();
    setSetup(undefined);
  };

  const begin = () =>
    setUpTwoFactor(password).then(async (s) => {
      // The QR code is drawn in the page (no third party sees the secret); the library loads only here.
      const QRCode = await import('qrcode');
      const qr = await QRCode.toDataURL(s.otpauthUrl, { margin: 1, width: 200 });
      setSetup({ ...s, qr });
      form.set('password', '');
      setStep('scan');
    });
  const enable = () =>
    enableTwoFactor(totp.trim()).then((r) => {
      setCodes(r.recoveryCodes);
      reset();
      void refresh();
    });
  const disable = () => {
    const code = totp.trim();
    const second = /^\d{6}$/.test(code) ? { totp: code } : { recoveryCode: code };
    return disableTwoFactor({ password, ...second }).then(() => {
      reset();
      setCodes(undefined);
      setSaved('Two-factor sign-in is off.');
      void refresh();
    });
  };

  return (
    <section className="panel" aria-labelledby="two-factor">
      <h2 id="two-factor" className="panel-title">
        Two-factor sign-in
      </h2>
      {status.isPending ? (
        <Loading label="Loading two-factor status…" />
      ) : status.isError ? (
        <ErrorState
          title="The two-factor status could not be loaded."
          error={status.error}
          onRetry={() => status.refetch()}
        />
      ) : (
        <>
          <p>
            {status.data.enabled
              ? `On. Signing in asks for a code from your authenticator app. ${status.data.recoveryCodesLeft} recovery codes left.`
              : 'Off. Add a code from an authenticator app to your password to protect your account.'}
          </p>
          {codes && <RecoveryCodes codes={codes} />}
          <Saved message={saved} />
          <FormError message={form.formError} />
          {step === 'idle' && (
            <Button
              variant={status.data.enabled ? 'secondary' : 'primary'}
              onPress={() => {
                setSaved(undefined);
                setCodes(undefined);
                setStep(status.data.enabled ? 'disable' : 'password');
              }}
            >
              {status.data.enabled ? 'Turn off two-factor sign-in' : 'Set up two-factor sign-in'}
            </Button>
          )}
          {step === 'password' && (
            <Form className="form" validationErrors={form.fieldErrors} onSubmit={form.handleSubmit}>
              <TextField
                label="Your password"
                name="password"
                type="password"
                autoComplete="current-password"
                isRequired
                autoFocus
                value={password}
                onChange={(v) => form.set('password', v)}
              />
              <div className="form-row">
                <Button type="submit" variant="primary">
                  Continue
                </Button>
                <Button onPress={reset}>Cancel</Button>
              </div>
            </Form>
          )}
          {step === 'scan' && setup && (
            <Form className="form" validationErrors={form.fieldErrors} onSubmit={form.handleSubmit}>
              <div className="qr-setup">
                <img src={setup.qr} alt="QR code for your authenticator app" width={200} height={200} />
                <div>
                  <p>Scan this code with your authenticator app, or type this key into it:</p>
                  <p>
                    <code className="secret" aria-label="Setup key">
                      {setup.secret}
                    </code>
                  </p>
                  <CopyButton text={setup.secret} label="Copy the key" />
                </div>
              </div>
              <TextField
                label="Code from the app"
                name="totp"
                inputMode="numeric"
                autoComplete="one-time-code"
                isRequired
                value={totp}
                onChange={(v) => form.set('totp', v)}
              />
              <div className="form-row">
                <Button type="submit" variant="primary">
                  Turn on
                </Button>
                <Button onPress={reset}>Cancel</Button>
              </div>
            </Form>
          )}
          {step === 'disable' && (
            <Form className="form" validationErrors={form.fieldErrors} onSubmit={form.handleSubmit}>
              <TextField
                label="Your password"
                name="password"
                type="password"
                autoComplete="current-password"
                isRequired
                autoFocus
                value={password}
                onChange={(v) => form.set('password', v)}
              />
              <TextField
                label="Code from the app or a recovery code"
                name="totp"
                autoComplete="one-time-code"
                isRequired
                value={totp}
                onChange={(v) => form.set('totp', v)}
              />
              <div className="form-row">
                <Button type="submit" variant="danger">
                  Turn off
                </Button>
                <Button onPress={reset}>Cancel</Button>
              </div>
            </Form>
          )}
        </>
      )}
    </section>
  );
}
