import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/keys';
import { usersQuery } from '../../../api/queries';
import { Button } from '../../../components/Button';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { RelativeTime } from '../../../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { formatCount, formatDate } from '../../../lib/format';
import { sentence } from '../../../lib/useForm';
import { revokeServiceKey, serviceApiKeysQuery, type ServiceApiKey } from './api';
import { OAuthClientsSection } from './OAuthClientsSection';
import '../audit-log/audit-log.css';
import './api-keys.css';

/** Every API key of the service (admin): whose, what kind, when made, last used and expiring; revoke. */
export function ApiKeysPage() {
  useDocumentTitle('API keys');
  return <ApiKeys />;
}

const KIND_NAMES = {
  key: 'API key',
  device: 'Device sign-in',
  oauth: 'App sign-in (OAuth)',
  scim: 'SCIM provisioning',
} as const;

function ApiKeys() {
  const queryClient = useQueryClient();
  const keys = useQuery(serviceApiKeysQuery);
  const people = useQuery(usersQuery());
  const [showRevoked, setShowRevoked] = useState(false);
  const [revoking, setRevoking] = useState<ServiceApiKey>();
  const [said, setSaid] = useState<string>();
  const revoke = useMutation({
    mutationFn: (k: ServiceApiKey) => revokeServiceKey(k.id),
    onSuccess: (_r, k) => {
      setRevoking(undefined);
      setSaid(`“${k.name}” of ${k.userEmail} is revoked.`);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.serviceApiKeys() }),
  });
  const nameOf = (userId: number) => people.data?.users.find((p) => p.id === userId)?.name;
  const all = keys.data ?? [];
  const revokedCount = all.filter((k) => k.revokedAt).length;
  const shown = showRevoked ? all : all.filter((k) => !k.revokedAt);

  return (
    <div className="page keys-page">
      <header className="page-header">
        <div>
          <h1 className="page-title">API keys</h1>
          <p className="page-subtitle">
            Every key and signed-in device of the service. A key acts as its person; revoking it stops it at
            once.
          </p>
        </div>
      </header>
      <p className="admin-said" role="status">
        {said}
      </p>
      <section className="panel" aria-labelledby="all-keys">
        <div className="keys-head">
          <h2 id="all-keys" className="panel-title">
            {keys.isPending ? 'Keys' : `Keys (${formatCount(shown.length)})`}
          </h2>
          {revokedCount > 0 && (
            <label className="checkbox-field">
              <input
                type="checkbox"
                checked={showRevoked}
                onChange={(e) => setShowRevoked(e.target.checked)}
              />
              Show {formatCount(revokedCount)} revoked
            </label>
          )}
        </div>
        {keys.isPending ? (
          <Loading label="Loading the keys…" />
        ) : keys.isError ? (
          <ErrorState
            title="The keys could not be loaded."
            error={keys.error}
            onRetry={() => keys.refetch()}
          />
        ) : shown.length === 0 ? (
          <EmptyState title="No active keys.">People make their own keys in their settings.</EmptyState>
        ) : (
          <ul className="keys-list" aria-label="API keys of the service">
            {shown.map((k) => (
              <li key={k.id} className="keys-row">
                <div className="keys-who">
                  <span className="keys-name">
                    {k.name} <span className="badge">{KIND_NAMES[k.kind]}</span>
                    {k.restricted && <span className="badge">Audit log only</span>}
                    {k.revokedAt && <span className="badge">Revoked {formatDate(k.revokedAt)}</span>}
                  </span>
                  <span className="muted keys-meta">
                    {nameOf(k.userId) ? `${nameOf(k.userId)} · ` : ''}
                    {k.userEmail}
                  </span>
                </div>
                <dl className="keys-dates">
                  <div>
                    <dt>Created</dt>
                    <dd>{formatDate(k.createdAt)}</dd>
                  </div>
                  <div>
                    <dt>Last used</dt>
                    <dd>{k.lastUsedAt ? <RelativeTime iso={k.lastUsedAt} /> : 'Never'}</dd>
                  </div>
                  <div>
                    <dt>Expires</dt>
                    <dd>{k.expiresAt ? formatDate(k.expiresAt) : 'Never'}</dd>
                  </div>
                </dl>
                {!k.revokedAt && (
                  <Button
                    aria-label={`Revoke ${k.name} of ${k.userEmail}`}
                    onPress={() => {
                      revoke.reset();
                      setRevoking(k);
                    }}
                  >
                    Revoke
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      <OAuthClientsSection />
      {revoking && (
        <ConfirmDialog
          title={revoking.kind !== 'key' ? 'Sign out this device?' : 'Revoke this key?'}
          onClose={() => setRevoking(undefined)}
          confirmLabel={revoking.kind !== 'key' ? 'Sign out device' : 'Revoke key'}
          onConfirm={() => revoke.mutate(revoking)}
          isPending={revoke.isPending}
          error={revoke.isError ? sentence(revoke.error.message) : undefined}
        >
          <p>
            “{revoking.name}” of {revoking.userEmail} stops working at once: every script or device that uses
            it is refused from its next request. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
