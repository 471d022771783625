import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form, Switch } from 'react-aria-components';
import { isApiError } from '../../api/client';
import { queryKeys } from '../../api/keys';
import { setSingleKeyShortcuts, useSingleKeyShortcuts } from '../../lib/shortcuts';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { TextField } from '../../components/TextField';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { meQuery } from '../../session/session';
import {
  apiKeysQuery,
  changeMyEmail,
  changeMyPassword,
  createApiKey,
  disableTwoFactor,
  enableTwoFactor,
  renameMe,
  revokeApiKey,
  setUpTwoFactor,
  twoFactorQuery,
  type ApiKey,
} from './api';
import './settings.css';

const sentence = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).replace(/\.?$/, '.');

/** An API error as words: field errors go next to their field, the rest above the form. */
function useFormErrors() {
  const [formError, setFormError] = useState<string>();
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  return {
    formError,
    fieldErrors,
    clear() {
      setFormError(undefined);
      setFieldErrors({});
    },
    show(e: unknown) {
      if (isApiError(e)) {
        const fields = e.fieldErrors();
        if (Object.keys(fields).length > 0) setFieldErrors(fields);
        else setFormError(sentence(e.message));
      } else setFormError('The service could not be reached. Check your connection and try again.');
    },
  };
}

function FormError({ message }: { message?: string }) {
  return message ? (
    <p className="form-error" role="alert">
      {message}
    </p>
  ) : null;
}

function Saved({ message }: { message?: string }) {
  return (
    <p className="settings-saved" role="status">
      {message}
    </p>
  );
}

export function SettingsPage() {
  useDocumentTitle('Your settings');
  return (
    <div className="page page-narrow settings">
      <h1 className="page-title">Your settings</h1>
      <ProfileSection />
      <PasswordSection />
      <TwoFactorSection />
      <ApiKeysSection />
      <KeyboardSection />
    </div>
  );
}

function ProfileSection() {
  const me = useQuery(meQuery).data;
  const queryClient = useQueryClient();
  const [name, setName] = useState(me?.name ?? '');
  const [email, setEmail] = useState(me?.email ?? '');
  const [password, setPassword] = useState('');
  const [saved, setSaved] = useState<string>();
  const errors = useFormErrors();
  const save = useMutation({
    mutationFn: async () => {
      const messages: string[] = [];
      if (me && name.trim() !== me.name) {
        await renameMe(name.trim());
        messages.push('name');
      }
      if (me && email.trim() !== me.email) {
        await changeMyEmail(email.trim(), password);
        messages.push('e-mail address');
      }
      return messages;
    },
    onMutate: () => {
      errors.clear();
      setSaved(undefined);
    },
    onSuccess: (changed) => {
      setPassword('');
      setSaved(
        changed.length
          ? `Your ${changed.join(' and ')} ${changed.length > 1 ? 'were' : 'was'} saved.`
          : 'Nothing changed.',
      );
    },
    onError: errors.show,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.me(), exact: true }),
  });
  const emailChanged = !!me && email.trim() !== me.email;
  useWarnBeforeLeaving(!!me && (name.trim() !== me.name || emailChanged));

  return (
    <section className="panel" aria-labelledby="profile">
      <h2 id="profile" className="panel-title">
        Profile
      </h2>
      <FormError message={errors.formError} />
      <Form
        className="form"
        validationErrors={errors.fieldErrors}
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <TextField label="Name" name="name" autoComplete="name" isRequired value={name} onChange={setName} />
        <TextField
          label="E-mail"
          name="email"
          type="email"
          autoComplete="email"
          isRequired
          value={email}
          onChange={setEmail}
        />
        {emailChanged && (
          <TextField
            label="Current password"
            name="password"
            type="password"
            autoComplete="current-password"
            description="Changing your e-mail address needs your password."
            isRequired
            value={password}
            onChange={setPassword}
          />
        )}
        <div className="form-row">
          <Button type="submit" variant="primary" isPending={save.isPending}>
            Save profile
          </Button>
          <Saved message={saved} />
        </div>
      </Form>
    </section>
  );
}

/** Leaving the page (reload, closing the tab) with unsaved edits asks first: nothing typed is lost silently. */
function useWarnBeforeLeaving(dirty: boolean) {
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);
}

function PasswordSection() {
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [saved, setSaved] = useState<string>();
  const errors = useFormErrors();
  const change = useMutation({
    mutationFn: () => changeMyPassword(currentPassword, newPassword),
    onMutate: () => {
      errors.clear();
      setSaved(undefined);
    },
    onSuccess: () => {
      setCurrent('');
      setNew('');
      setSaved('Password changed. Your other sessions and device sign-ins have ended.');
    },
    onError: errors.show,
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
      <FormError message={errors.formError} />
      <Form
        className="form"
        validationErrors={errors.fieldErrors}
        onSubmit={(e) => {
          e.preventDefault();
          change.mutate();
        }}
      >
        <TextField
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          isRequired
          value={currentPassword}
          onChange={setCurrent}
        />
        <TextField
          label="New password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          isRequired
          minLength={8}
          description="At least 8 characters."
          value={newPassword}
          onChange={setNew}
        />
        <div className="form-row">
          <Button type="submit" variant="primary" isPending={change.isPending}>
            Change password
          </Button>
          <Saved message={saved} />
        </div>
      </Form>
    </section>
  );
}

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

function TwoFactorSection() {
  const queryClient = useQueryClient();
  const status = useQuery(twoFactorQuery);
  const [step, setStep] = useState<'idle' | 'password' | 'scan' | 'disable'>('idle');
  const [password, setPassword] = useState('');
  const [totp, setTotp] = useState('');
  const [setup, setSetup] = useState<{ secret: string; otpauthUrl: string; qr: string }>();
  const [codes, setCodes] = useState<string[]>();
  const [saved, setSaved] = useState<string>();
  const errors = useFormErrors();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.twoFactor() });
  const reset = () => {
    setStep('idle');
    setPassword('');
    setTotp('');
    setSetup(undefined);
    errors.clear();
  };

  async function run(e: FormEvent<HTMLFormElement>, action: () => Promise<void>) {
    e.preventDefault();
    errors.clear();
    setSaved(undefined);
    try {
      await action();
    } catch (err) {
      errors.show(err);
    }
  }

  const begin = () =>
    setUpTwoFactor(password).then(async (s) => {
      // The QR code is drawn in the page (no third party sees the secret); the library loads only here.
      const QRCode = await import('qrcode');
      const qr = await QRCode.toDataURL(s.otpauthUrl, { margin: 1, width: 200 });
      setSetup({ ...s, qr });
      setPassword('');
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
          <FormError message={errors.formError} />
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
            <Form className="form" validationErrors={errors.fieldErrors} onSubmit={(e) => run(e, begin)}>
              <TextField
                label="Your password"
                name="password"
                type="password"
                autoComplete="current-password"
                isRequired
                autoFocus
                value={password}
                onChange={setPassword}
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
            <Form className="form" validationErrors={errors.fieldErrors} onSubmit={(e) => run(e, enable)}>
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
                onChange={setTotp}
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
            <Form className="form" validationErrors={errors.fieldErrors} onSubmit={(e) => run(e, disable)}>
              <TextField
                label="Your password"
                name="password"
                type="password"
                autoComplete="current-password"
                isRequired
                autoFocus
                value={password}
                onChange={setPassword}
              />
              <TextField
                label="Code from the app or a recovery code"
                name="totp"
                autoComplete="one-time-code"
                isRequired
                value={totp}
                onChange={setTotp}
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

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span className="copy">
      <Button
        onPress={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setCopied(true);
          } catch {
            setCopied(false);
          }
        }}
      >
        {label}
      </Button>
      <span role="status" className="settings-saved">
        {copied ? 'Copied.' : ''}
      </span>
    </span>
  );
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const when = (iso?: string) => (iso ? dateFormat.format(new Date(iso)) : '—');

function ApiKeysSection() {
  const queryClient = useQueryClient();
  const keys = useQuery(apiKeysQuery);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const errors = useFormErrors();
  const create = useMutation({
    mutationFn: () => createApiKey(name.trim()),
    onMutate: errors.clear,
    onSuccess: (r) => {
      setCreated({ name: name.trim(), key: r.key });
      setName('');
    },
    onError: errors.show,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys() }),
  });
  const revoke = useMutation({
    mutationFn: (id: string) => revokeApiKey(id),
    onSuccess: () => setRevoking(undefined),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys() }),
  });
  const active = (keys.data ?? []).filter((k) => !k.revokedAt);

  return (
    <section className="panel" aria-labelledby="api-keys">
      <h2 id="api-keys" className="panel-title">
        API keys and signed-in devices
      </h2>
      <p className="muted">
        Keys let scripts and the command line act as you. Devices signed in with{' '}
        <code>qasphere auth login</code> are listed here too.
      </p>
      <FormError message={errors.formError} />
      <Form
        className="form form-inline"
        validationErrors={errors.fieldErrors}
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <TextField
          label="New key name"
          name="name"
          isRequired
          value={name}
          onChange={setName}
          placeholder="e.g. CI uploads"
        />
        <Button type="submit" variant="primary" isPending={create.isPending}>
          Create key
        </Button>
      </Form>
      {created && (
        <div className="new-key" role="status">
          <p>
            <strong>Copy the key “{created.name}” now</strong> — it is shown only this once.
          </p>
          <code className="secret" aria-label="New API key">
            {created.key}
          </code>
          <div className="form-row">
            <CopyButton text={created.key} label="Copy the key" />
            <Button variant="ghost" onPress={() => setCreated(undefined)}>
              Done
            </Button>
          </div>
        </div>
      )}
      {keys.isPending ? (
        <Loading label="Loading your keys…" />
      ) : keys.isError ? (
        <ErrorState
          title="Your keys could not be loaded."
          error={keys.error}
          onRetry={() => keys.refetch()}
        />
      ) : active.length === 0 ? (
        <EmptyState title="No keys yet.">
          Create one above to use the API or the upload command line.
        </EmptyState>
      ) : (
        <ul className="key-list" aria-label="Your API keys">
          {active.map((k) => (
            <li key={k.id} className="key-row">
              <div>
                <span className="key-name">{k.name}</span>
                {k.kind === 'device' && <span className="badge">Device sign-in</span>}
                <span className="muted key-meta">
                  Created {when(k.createdAt)} ·{' '}
                  {k.lastUsedAt ? (
                    <>
                      last used <RelativeTime iso={k.lastUsedAt} />
                    </>
                  ) : (
                    'never used'
                  )}
                  {k.expiresAt ? ` · expires ${when(k.expiresAt)}` : ''}
                </span>
              </div>
              <Button aria-label={`Revoke ${k.name}`} onPress={() => setRevoking(k)}>
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      )}
      <Dialog
        title={revoking?.kind === 'device' ? 'Sign out this device?' : 'Revoke this key?'}
        isOpen={!!revoking}
        onOpenChange={(open) => !open && setRevoking(undefined)}
        isDismissable={!revoke.isPending}
      >
        <p>“{revoking?.name}” stops working at once. Anything that uses it will be refused.</p>
        {revoke.isError && <FormError message={sentence(revoke.error.message)} />}
        <div className="dialog-actions">
          <Button slot="close" isDisabled={revoke.isPending}>
            Cancel
          </Button>
          <Button
            variant="danger"
            isPending={revoke.isPending}
            onPress={() => revoking && revoke.mutate(revoking.id)}
          >
            {revoking?.kind === 'device' ? 'Sign out device' : 'Revoke key'}
          </Button>
        </div>
      </Dialog>
    </section>
  );
}

function KeyboardSection() {
  const on = useSingleKeyShortcuts();
  const setOn = setSingleKeyShortcuts;
  return (
    <section className="panel" aria-labelledby="keyboard">
      <h2 id="keyboard" className="panel-title">
        Keyboard
      </h2>
      <Switch className="switch" isSelected={on} onChange={setOn}>
        <span className="switch-track" aria-hidden="true">
          <span className="switch-thumb" />
        </span>
        Single-key shortcuts (<kbd>?</kbd>, <kbd>/</kbd>, <kbd>j</kbd>, <kbd>k</kbd>, <kbd>n</kbd>,{' '}
        <kbd>e</kbd>)
      </Switch>
      <p className="muted">
        Turn them off if you use speech input or they get in your way. Shortcuts with Ctrl or ⌘ keep working.
        This setting is kept in this browser.
      </p>
    </section>
  );
}
