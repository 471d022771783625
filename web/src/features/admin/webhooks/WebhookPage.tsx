import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { isApiError } from '../../../api/client';
import { ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { webhookQuery } from './api';
import { DeliveriesSection } from './DeliveriesSection';
import { WebhookForm } from './WebhookForm';
import '../integrations/adm-b.css';

/** /admin/webhooks/$webhookId (admins and the owner): one webhook's deliveries and its settings. */
export function WebhookPage() {
  const { webhookId } = useParams({ from: '/app/admin/webhooks/$webhookId' });
  const hook = useQuery(webhookQuery(webhookId));
  const [done, setDone] = useState<string>();
  useDocumentTitle(hook.data ? `Webhook ${hook.data.name}` : 'Webhook');
  if (hook.isPending) return <Loading label="Loading the webhook…" />;
  if (hook.isError)
    return (
      <div className="page page-narrow">
        {isApiError(hook.error, 404) ? (
          <>
            <h1 className="page-title">No such webhook</h1>
            <p>
              It may have been deleted. <Link to="/admin/webhooks">All webhooks</Link>
            </p>
          </>
        ) : (
          <ErrorState
            title="The webhook could not be loaded."
            error={hook.error}
            onRetry={() => void hook.refetch()}
          />
        )}
      </div>
    );
  const w = hook.data;
  return (
    <div className="page page-narrow adm-page">
      <p className="adm-back">
        <Link to="/admin/webhooks">← All webhooks</Link>
      </p>
      <div className="adm-head">
        <h1 className="page-title">
          {w.name}
          {!w.enabled && <span className="adm-badge adm-badge-off">disabled</span>}
        </h1>
      </div>
      <p className="adm-intro adm-wrap">
        Posts to {w.endpoint}
        {w.disabledReason ? `. Disabled by the service: ${w.disabledReason}` : ''}
      </p>
      <DeliveriesSection webhook={w} />
      <p role="status" className="adm-note">
        {done}
      </p>
      {/* A new key after each save: the form starts again from what was stored (the write-only fields empty). */}
      <WebhookForm key={w.updatedAt} editing={w} onDone={(message) => setDone(message)} />
    </div>
  );
}
