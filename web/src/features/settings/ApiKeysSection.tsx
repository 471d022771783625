import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { Button } from '../../components/Button';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { FormError } from '../../components/FormError';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { TextField } from '../../components/TextField';
import { sentence, useForm } from '../../lib/useForm';
import { apiKeysQuery, type ApiKey, createApiKey, revokeApiKey } from './api';
import { CopyButton } from './parts';
import { queryKeys } from '../../api/keys';
import { formatDate } from '../../lib/format';
import { meQuery } from '../../session/session';

const when = (iso?: string) => (iso ? formatDate(iso) : '—');

/** Keys for scripts and the command line, and devices signed in with it: create (shown once), revoke. */
export function ApiKeysSection() {
  const queryClient = useQueryClient();
  const keys = useQuery(apiKeysQuery);
  const [created, setCreated] = useState<{ name: string; key: string }>();
  // Only the owner makes a SCIM provisioning key (docs/operations.md, Provisioning with SCIM).
  const isOwner = useQuery(meQuery).data?.role === 'owner';
  const [forScim, setForScim] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey>();
  const create = useMutation({
    mutationFn: (name: string) => createApiKey(name, forScim ? 'scim' : 'key'),
    onSuccess: (r, name) => {
      setCreated({ name, key: r.key });
      form.set('name', '');
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys() }),
  });
  const form = useForm({ initial: { name: '' }, submit: ({ name }) => create.mutateAsync(name.trim()) });
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
      <FormError message={form.formError} />
      <Form className="form form-inline" validationErrors={form.fieldErrors} onSubmit={form.handleSubmit}>
        <TextField
          label="New key name"
          name="name"
          isRequired
          value={form.values.name}
          onChange={(v) => form.set('name', v)}
          placeholder="e.g. CI uploads"
        />
        {isOwner && (
          <label className="checkbox-field">
            <input type="checkbox" checked={forScim} onChange={(e) => setForScim(e.target.checked)} />
            For SCIM provisioning (an identity provider; works only at /scim/v2)
          </label>
        )}
        <Button type="submit" variant="primary" isPending={form.submitting}>
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
                {k.kind === 'oauth' && <span className="badge">App sign-in (OAuth)</span>}
                {k.kind === 'scim' && <span className="badge">SCIM provisioning</span>}
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
      {revoking && (
        <ConfirmDialog
          title={revoking.kind !== 'key' ? 'Sign out this device?' : 'Revoke this key?'}
          onClose={() => setRevoking(undefined)}
          confirmLabel={revoking.kind !== 'key' ? 'Sign out device' : 'Revoke key'}
          onConfirm={() => revoke.mutate(revoking.id)}
          isPending={revoke.isPending}
          error={revoke.isError ? sentence(revoke.error.message) : undefined}
        >
          <p>“{revoking.name}” stops working at once. Anything that uses it will be refused.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
