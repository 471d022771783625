import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { EmptyState, ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { formatCountOf, formatDuration } from '../../../lib/format';
import { sentence, UNREACHABLE } from '../../../lib/useForm';
import { isApiError } from '../../../api/client';
import {
  checkInWords,
  deleteIntegration,
  integrationsQuery,
  testIntegration,
  TYPES,
  type Integration,
} from './api';
import { IntegrationForm } from './IntegrationForm';
import './adm-b.css';

const words = (e: unknown) => (isApiError(e) ? sentence(e.message) : UNREACHABLE);

/** /admin/integrations (admins and the owner): the tenant's issue trackers. */
export function IntegrationsPage() {
  useDocumentTitle('Integrations');
  return <Integrations />;
}

type Check = { id: string; ok: boolean; text: string };

function Integrations() {
  const queryClient = useQueryClient();
  const list = useQuery(integrationsQuery);
  /** 'new', an integration's id being edited, or nothing. */
  const [editing, setEditing] = useState<string>();
  const [done, setDone] = useState<string>();
  const [check, setCheck] = useState<Check>();
  const [deleting, setDeleting] = useState<Integration>();

  const test = useMutation({
    mutationFn: (i: Integration) => testIntegration(i.id),
    onMutate: (i) => setCheck({ id: i.id, ok: true, text: 'Testing…' }),
    onSuccess: (r, i) =>
      setCheck({
        id: i.id,
        ok: r.ok,
        text: checkInWords(r, formatDuration),
      }),
    onError: (e, i) => setCheck({ id: i.id, ok: false, text: words(e) }),
  });
  const remove = useMutation({
    mutationFn: (i: Integration) => deleteIntegration(i.id),
    onSuccess: (_r, i) => {
      setDeleting(undefined);
      setDone(`Integration "${i.name}" deleted.`);
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminIntegrations() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.projects() });
    },
  });

  if (list.isPending) return <Loading label="Loading integrations…" />;
  if (list.isError)
    return (
      <ErrorState
        title="The integrations could not be loaded."
        error={list.error}
        onRetry={() => void list.refetch()}
      />
    );
  const integrations = list.data;
  const finish = (message: string) => {
    setEditing(undefined);
    setDone(message);
  };
  return (
    <div className="page page-narrow adm-page">
      <div className="adm-head">
        <h1 className="page-title">Integrations</h1>
        {editing !== 'new' && (
          <Button variant="primary" onPress={() => (setDone(undefined), setEditing('new'))}>
            New integration
          </Button>
        )}
      </div>
      <p className="adm-intro">
        Issue trackers that results link to and comment on. A project uses one after it is linked in the
        project's settings. Credentials are stored encrypted and never shown again.
      </p>
      <p role="status" className="adm-note">
        {done}
      </p>
      {editing === 'new' && <IntegrationForm onDone={finish} onCancel={() => setEditing(undefined)} />}
      {integrations.length === 0 && editing !== 'new' ? (
        <EmptyState title="No integrations yet">
          <p>Create one to link results to issues in a tracker.</p>
        </EmptyState>
      ) : (
        <ul className="adm-list" aria-label="Integrations">
          {integrations.map((i) =>
            editing === i.id ? (
              <li key={i.id}>
                <IntegrationForm editing={i} onDone={finish} onCancel={() => setEditing(undefined)} />
              </li>
            ) : (
              <li key={i.id} className="panel adm-row">
                <div className="adm-row-main">
                  <h2 className="adm-row-title">{i.name}</h2>
                  <p className="adm-row-meta">
                    {TYPES[i.type].label} · {summary(i)} ·{' '}
                    {TYPES[i.type].token === 'none'
                      ? 'no credential'
                      : i.hasToken
                        ? 'credential stored'
                        : 'no credential stored'}{' '}
                    · linked to {formatCountOf(i.linkedProjectCount, 'project')}
                  </p>
                  {check?.id === i.id && (
                    <p className={`adm-check ${check.ok ? 'adm-check-ok' : 'adm-check-bad'}`} role="status">
                      {check.text}
                    </p>
                  )}
                </div>
                <div className="adm-row-actions">
                  {i.type !== 'custom' && (
                    <Button
                      onPress={() => test.mutate(i)}
                      isPending={test.isPending && test.variables?.id === i.id}
                      aria-label={`Test connection of ${i.name}`}
                    >
                      Test connection
                    </Button>
                  )}
                  <Button
                    onPress={() => (setDone(undefined), setEditing(i.id))}
                    aria-label={`Edit ${i.name}`}
                  >
                    Edit
                  </Button>
                  <Button
                    variant="danger"
                    onPress={() => (remove.reset(), setDeleting(i))}
                    aria-label={`Delete ${i.name}`}
                  >
                    Delete
                  </Button>
                </div>
              </li>
            ),
          )}
        </ul>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete "${deleting.name}"?`}
          onClose={() => setDeleting(undefined)}
          confirmLabel="Delete integration"
          onConfirm={() => remove.mutate(deleting)}
          isPending={remove.isPending}
          error={remove.isError ? words(remove.error) : undefined}
        >
          <p>
            This removes the integration, its stored credential and its links to{' '}
            {formatCountOf(deleting.linkedProjectCount, 'project')}. Results keep their issue links; no more
            comments are posted to this tracker.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/** The settings that tell integrations of a type apart, in one line. */
function summary(i: Integration): string {
  const c = i.config;
  if (i.type === 'tracker_a') return `${c.account ?? ''}${c.apiUrl ? ` at ${c.apiUrl}` : ''}`;
  if (i.type === 'tracker_b') return `${c.url ?? ''} as ${c.email ?? ''}`;
  if (i.type === 'tracker_c') return `${c.organizationKey ?? ''}${c.apiUrl ? ` at ${c.apiUrl}` : ''}`;
  return c.viewUrl ?? '';
}
