import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { EmptyState, ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import {
  deleteProvider,
  providersQuery,
  TEST_MESSAGE,
  testStartUrl,
  updateProvider,
  words,
  type Provider,
} from './api';
import { PasswordPolicy } from './PasswordPolicy';
import { ProviderForm } from './ProviderForm';
import { TestOutcomeView } from './TestOutcomeView';
import '../integrations/adm-b.css';
import './sign-in.css';

/** /admin/sign-in (admins and the owner): the tenant's OpenID Connect providers, each testable before it is on. */
export function SignInProvidersPage() {
  useDocumentTitle('Sign-in');
  return <Providers />;
}

/** The redirect URI to register at the provider, with a copy button. */
function RedirectUri({ uri, name }: { uri: string; name: string }) {
  const [state, setState] = useState<'copied' | 'failed'>();
  return (
    <div className="sso-redirect">
      <span>Redirect URI to register at the provider:</span>
      <code>{uri}</code>
      <Button
        aria-label={`Copy the redirect URI of ${name}`}
        onPress={async () => {
          try {
            await navigator.clipboard.writeText(uri);
            setState('copied');
          } catch {
            setState('failed');
          }
        }}
      >
        Copy
      </Button>
      <span role="status" className="adm-row-meta">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'Could not copy: select it and copy it.' : ''}
      </span>
    </div>
  );
}

function Providers() {
  const queryClient = useQueryClient();
  const list = useQuery(providersQuery);
  const [creating, setCreating] = useState(false);
  const [editingId, setEditingId] = useState<string>();
  const [done, setDone] = useState<string>();
  const [deleting, setDeleting] = useState<Provider>();
  const [rowError, setRowError] = useState<{ id: string; message: string }>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.oidcProviders() });
  useEffect(() => {
    // The test popup says when its outcome is stored: read it again and say so.
    const onMessage = (e: MessageEvent) => {
      if (e.origin !== window.location.origin) return;
      const data = e.data as { type?: unknown; providerId?: unknown } | null;
      if (data?.type !== TEST_MESSAGE) return;
      void queryClient.invalidateQueries({ queryKey: queryKeys.oidcProviders() });
      setDone('The test sign-in finished: its outcome is shown under the provider.');
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [queryClient]);
  const toggle = useMutation({
    mutationFn: (p: Provider) => updateProvider(p.id, { enabled: !p.enabled }),
    onMutate: () => (setRowError(undefined), setDone(undefined)),
    onSuccess: (p) => setDone(`Provider "${p.name}" ${p.enabled ? 'enabled' : 'disabled'}.`),
    onError: (e, p) => setRowError({ id: p.id, message: words(e) }),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (p: Provider) => deleteProvider(p.id),
    onSuccess: (_r, p) => {
      setDeleting(undefined);
      setDone(`Provider "${p.name}" deleted.`);
    },
    onSettled: refresh,
  });
  const test = (p: Provider) => {
    setDone(undefined);
    setRowError(undefined);
    const popup = window.open(testStartUrl(p.id), 'casebook-oidc-test', 'popup,width=560,height=760');
    if (popup) setDone(`Test sign-in of "${p.name}" opened in a new window: sign in there.`);
    else
      setRowError({
        id: p.id,
        message: 'The browser blocked the test window: allow pop-ups for this site and try again.',
      });
  };
  if (list.isPending) return <Loading label="Loading the identity providers…" />;
  if (list.isError)
    return (
      <ErrorState
        title="The identity providers could not be loaded."
        error={list.error}
        onRetry={() => void list.refetch()}
      />
    );
  return (
    <div className="page page-narrow adm-page">
      <div className="adm-head">
        <h1 className="page-title">Sign-in</h1>
        {!creating && (
          <Button variant="primary" onPress={() => (setDone(undefined), setCreating(true))}>
            New identity provider
          </Button>
        )}
      </div>
      <p className="adm-intro">
        People sign in through your organisation&apos;s OpenID Connect providers (Keycloak, Microsoft Entra
        ID, Okta, Google Workspace…). Add one, register its redirect URI at the provider, run &quot;Test
        sign-in&quot; to see the claims it sends and the role they map to, then enable it.
      </p>
      <p role="status" className="adm-note">
        {done}
      </p>
      {creating && (
        <ProviderForm
          onDone={(message, p) => {
            setCreating(false);
            setDone(`${message} Register its redirect URI at the provider: ${p.redirectUri}`);
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      {list.data.length === 0 && !creating ? (
        <EmptyState title="No identity providers yet">
          <p>People sign in with a password until you add one.</p>
        </EmptyState>
      ) : (
        <ul className="adm-list" aria-label="Identity providers">
          {list.data.map((p) => (
            <li key={p.id} className="panel adm-row sso-row">
              <div className="adm-row-main">
                <h2 className="adm-row-title">
                  {p.name}
                  <span className={p.enabled ? 'adm-badge' : 'adm-badge adm-badge-off'}>
                    {p.enabled ? 'enabled' : 'disabled'}
                  </span>
                </h2>
                <p className="adm-row-meta">
                  {p.issuer} ·{' '}
                  {p.justInTime ? 'just in time: new people get an account' : 'pre-provisioned only'} ·{' '}
                  {p.roleRules.length} role {p.roleRules.length === 1 ? 'rule' : 'rules'}
                </p>
                <RedirectUri uri={p.redirectUri} name={p.name} />
                {rowError?.id === p.id && (
                  <p className="field-error" role="alert">
                    {rowError.message}
                  </p>
                )}
              </div>
              <div className="adm-row-actions">
                <Button onPress={() => test(p)} aria-label={`Test sign-in with ${p.name}`}>
                  Test sign-in
                </Button>
                <Button
                  onPress={() => (setDone(undefined), setEditingId(editingId === p.id ? undefined : p.id))}
                  aria-expanded={editingId === p.id}
                  aria-label={`Edit ${p.name}`}
                >
                  Edit
                </Button>
                <Button
                  onPress={() => toggle.mutate(p)}
                  isPending={toggle.isPending && toggle.variables?.id === p.id}
                  aria-label={`${p.enabled ? 'Disable' : 'Enable'} ${p.name}`}
                >
                  {p.enabled ? 'Disable' : 'Enable'}
                </Button>
                <Button
                  variant="danger"
                  onPress={() => (remove.reset(), setDeleting(p))}
                  aria-label={`Delete ${p.name}`}
                >
                  Delete
                </Button>
              </div>
              {p.lastTest && (
                <TestOutcomeView
                  outcome={p.lastTest}
                  providerName={p.name}
                  changedSince={p.updatedAt > p.lastTest.at}
                />
              )}
              {editingId === p.id && (
                <ProviderForm
                  key={p.updatedAt}
                  editing={p}
                  onDone={(message) => (setEditingId(undefined), setDone(message))}
                  onCancel={() => setEditingId(undefined)}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      <PasswordPolicy />
      {deleting && (
        <ConfirmDialog
          title={`Delete "${deleting.name}"?`}
          onClose={() => setDeleting(undefined)}
          confirmLabel="Delete provider"
          onConfirm={() => remove.mutate(deleting)}
          isPending={remove.isPending}
          error={remove.isError ? words(remove.error) : undefined}
        >
          <p>
            Its button leaves the sign-in page and nobody can sign in through it any more. People who signed
            in through it keep their accounts (and sign in another way: a password, an invitation, another
            provider).
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
