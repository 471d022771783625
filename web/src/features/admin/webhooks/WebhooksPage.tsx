import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { EmptyState, ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { formatCountOf } from '../../../lib/format';
import {
  deleteWebhook,
  deliveryCountQuery,
  EVENTS,
  updateWebhook,
  webhooksQuery,
  words,
  type Webhook,
} from './api';
import { WebhookForm } from './WebhookForm';
import '../integrations/adm-b.css';

/** /admin/webhooks (admins and the owner): every webhook, enable or disable, create, delete. */
export function WebhooksPage() {
  useDocumentTitle('Webhooks');
  return <Webhooks />;
}

const eventsText = (w: Webhook) =>
  w.eventTypes.length === EVENTS.length
    ? 'every event'
    : w.eventTypes.map((t) => EVENTS.find((e) => e.type === t)?.label ?? t).join(', ');

function Webhooks() {
  const queryClient = useQueryClient();
  const list = useQuery(webhooksQuery);
  const [creating, setCreating] = useState(false);
  const [done, setDone] = useState<string>();
  const [deleting, setDeleting] = useState<Webhook>();
  const [rowError, setRowError] = useState<{ id: string; message: string }>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks() });
  const toggle = useMutation({
    mutationFn: (w: Webhook) => updateWebhook(w.id, { enabled: !w.enabled }),
    onMutate: () => (setRowError(undefined), setDone(undefined)),
    onSuccess: (w) => setDone(`Webhook "${w.name}" ${w.enabled ? 'enabled' : 'disabled'}.`),
    onError: (e, w) => setRowError({ id: w.id, message: words(e) }),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (w: Webhook) => deleteWebhook(w.id),
    onSuccess: (_r, w) => {
      setDeleting(undefined);
      setDone(`Webhook "${w.name}" deleted, with its delivery records.`);
    },
    onSettled: refresh,
  });
  if (list.isPending) return <Loading label="Loading webhooks…" />;
  if (list.isError)
    return (
      <ErrorState
        title="The webhooks could not be loaded."
        error={list.error}
        onRetry={() => void list.refetch()}
      />
    );
  return (
    <div className="page page-narrow adm-page">
      <div className="adm-head">
        <h1 className="page-title">Webhooks</h1>
        {!creating && (
          <Button variant="primary" onPress={() => (setDone(undefined), setCreating(true))}>
            New webhook
          </Button>
        )}
      </div>
      <p className="adm-intro">
        Webhooks post events (runs, test cases, results) to another service as they happen, signed with their
        secret. A webhook whose deliveries fail for 24 hours is disabled; enabling it again resumes.
      </p>
      <p role="status" className="adm-note">
        {done}
      </p>
      {creating && (
        <WebhookForm
          onDone={(message) => {
            setCreating(false);
            setDone(message);
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      {list.data.length === 0 && !creating ? (
        <EmptyState title="No webhooks yet">
          <p>Create one to tell a chat, a CI server or your own service what happens here.</p>
        </EmptyState>
      ) : (
        <ul className="adm-list" aria-label="Webhooks">
          {list.data.map((w) => (
            <li key={w.id} className="panel adm-row">
              <div className="adm-row-main">
                <h2 className="adm-row-title">
                  <Link to="/admin/webhooks/$webhookId" params={{ webhookId: w.id }}>
                    {w.name}
                  </Link>
                  {!w.enabled && <span className="adm-badge adm-badge-off">disabled</span>}
                </h2>
                <p className="adm-row-meta">
                  {w.endpoint} · {eventsText(w)} ·{' '}
                  {w.allowAllProjects ? 'every project' : formatCountOf(w.projectIds.length, 'project')}
                </p>
                {w.disabledReason && (
                  <p className="adm-row-meta">Disabled by the service: {w.disabledReason}</p>
                )}
                {rowError?.id === w.id && (
                  <p className="field-error" role="alert">
                    {rowError.message}
                  </p>
                )}
              </div>
              <div className="adm-row-actions">
                <Link
                  className="btn btn-secondary"
                  to="/admin/webhooks/$webhookId"
                  params={{ webhookId: w.id }}
                  aria-label={`Deliveries and settings of ${w.name}`}
                >
                  Deliveries and settings
                </Link>
                <Button
                  onPress={() => toggle.mutate(w)}
                  isPending={toggle.isPending && toggle.variables?.id === w.id}
                  aria-label={`${w.enabled ? 'Disable' : 'Enable'} ${w.name}`}
                >
                  {w.enabled ? 'Disable' : 'Enable'}
                </Button>
                <Button
                  variant="danger"
                  onPress={() => (remove.reset(), setDeleting(w))}
                  aria-label={`Delete ${w.name}`}
                >
                  Delete
                </Button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete "${deleting.name}"?`}
          onClose={() => setDeleting(undefined)}
          confirmLabel="Delete webhook"
          onConfirm={() => remove.mutate(deleting)}
          isPending={remove.isPending}
          error={remove.isError ? words(remove.error) : undefined}
        >
          <WhatGoes webhook={deleting} />
        </ConfirmDialog>
      )}
    </div>
  );
}

/** What deleting a webhook removes, its delivery records counted once they are read. */
function WhatGoes({ webhook }: { webhook: Webhook }) {
  const count = useQuery(deliveryCountQuery(webhook.id)).data;
  const records = count
    ? count.deliveries === 0
      ? 'it has no delivery records'
      : `its ${formatCountOf(count.deliveries, 'delivery record')}`
    : 'every one of its delivery records';
  const waiting = count
    ? count.pending === 0
      ? 'none is waiting to be sent'
      : `${formatCountOf(count.pending, 'delivery', 'deliveries')} still waiting ${count.pending === 1 ? 'is' : 'are'} not sent`
    : 'deliveries still waiting are not sent';
  return (
    <p aria-live="polite">
      This removes the webhook, its secret and headers, and {records}; {waiting}. {webhook.endpoint} gets no
      more events.
    </p>
  );
}
