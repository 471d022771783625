import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { isApiError } from '../../api/client';
import { queryKeys } from '../../api/keys';
import { Button } from '../../components/Button';
import { Loading } from '../../components/Status';
import { TextField } from '../../components/TextField';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { decideDeviceSignIn, deviceCodeQuery } from './api';
import './device.css';

/**
 * The device sign-in's verification page (`verification_uri[_complete]` = `/device?user_code=…`): someone signed in
 * (the app route sends them to sign-in and back here first) checks the code their terminal shows and approves
 * or denies it.
 */

const sentence = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).replace(/\.?$/, '.');

function EnterCode({ initial, error }: { initial?: string; error?: string }) {
  const navigate = useNavigate();
  const [code, setCode] = useState(initial ?? '');
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    void navigate({ to: '/device', search: { user_code: code.trim() } });
  }
  return (
    <Form onSubmit={submit} className="form" validationErrors={error ? { user_code: error } : {}}>
      <TextField
        label="Code shown on your device"
        name="user_code"
        autoComplete="off"
        isRequired
        autoFocus
        value={code}
        onChange={setCode}
        description="It looks like ABCD-EFGH."
      />
      <div className="device-actions">
        <Button type="submit" variant="primary">
          Continue
        </Button>
      </div>
    </Form>
  );
}

export function DevicePage() {
  const search = useSearch({ from: '/app/device' });
  const userCode = search.user_code?.trim() ?? '';
  useDocumentTitle('Sign in a device');
  return (
    <div className="page page-narrow">
      <h1 className="page-title">Sign in a device</h1>
      {userCode === '' ? (
        <>
          <p>
            Enter the code that the command line (for example <code>qasphere auth login</code>) shows you.
          </p>
          <EnterCode />
        </>
      ) : (
        <Decide key={userCode} userCode={userCode} />
      )}
    </div>
  );
}

function Decide({ userCode }: { userCode: string }) {
  const queryClient = useQueryClient();
  const view = useQuery(deviceCodeQuery(userCode));
  const decide = useMutation({
    mutationFn: (decision: 'approve' | 'deny') => decideDeviceSignIn(userCode, decision),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.deviceCode(userCode) }),
  });

  if (view.isPending) return <Loading label="Checking the code…" />;
  if (view.isError) {
    const bad = isApiError(view.error, 404);
    return (
      <>
        <p className="form-error" role="alert">
          {bad
            ? 'This code is not valid. Check it against the one your device shows and enter it again.'
            : sentence(view.error.message)}
        </p>
        <EnterCode initial={userCode} />
      </>
    );
  }

  if (decide.isSuccess)
    return (
      <div className={`notice ${decide.variables === 'approve' ? 'notice-success' : ''}`} role="status">
        <p className="status-title">
          {decide.variables === 'approve' ? 'Device approved' : 'Sign-in denied'}
        </p>
        <p>
          {decide.variables === 'approve'
            ? 'You can return to your device: it is signed in as you.'
            : 'The device gets no access. If you did not start this sign-in, tell your administrator.'}
        </p>
      </div>
    );

  const v = view.data;
  if (v.status !== 'pending')
    return (
      <div className="notice" role="alert">
        <p className="status-title">
          {v.status === 'expired'
            ? 'This code has expired'
            : v.status === 'denied'
              ? 'This sign-in was denied'
              : 'This code was approved already'}
        </p>
        <p>
          {v.status === 'expired'
            ? 'Codes work for a few minutes. Start the sign-in on your device again to get a new one.'
            : v.status === 'denied'
              ? 'The device got no access. Start the sign-in on your device again if you want to use it.'
              : 'You can return to your device.'}
        </p>
      </div>
    );

  return (
    <section className="panel device-panel" aria-labelledby="device-ask">
      <h2 id="device-ask" className="panel-title">
        <strong>{v.clientName}</strong> asks to act as you
      </h2>
      <p>Check that your device shows this code:</p>
      <p className="device-code" aria-label={`Code ${v.userCode}`}>
        {v.userCode}
      </p>
      <p className="muted">
        Approve only if you started this sign-in yourself, just now. If someone sent you this link, deny it.
      </p>
      {decide.isError && (
        <p className="form-error" role="alert">
          {sentence(decide.error.message)}
        </p>
      )}
      <div className="device-actions">
        <Button variant="primary" isPending={decide.isPending} onPress={() => decide.mutate('approve')}>
          Approve
        </Button>
        <Button variant="danger" isDisabled={decide.isPending} onPress={() => decide.mutate('deny')}>
          Deny
        </Button>
      </div>
    </section>
  );
}
