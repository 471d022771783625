import { useState } from 'react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { ErrorState, Loading } from '../../../components/Status';
import { formatDateTime, formatDuration } from '../../../lib/format';
import {
  deliveriesQuery,
  deliveryQuery,
  pingWebhook,
  redeliver,
  words,
  type Delivery,
  type Webhook,
} from './api';

const STATUS_WORDS: Record<Delivery['status'], string> = {
  pending: 'Pending',
  succeeded: 'Delivered',
  failed: 'Failed',
};

/**
 * The webhook's delivery log: newest first by when each was queued (the time shown), a page at a time, all or
 * the failed ones only; send a test event; redeliver one.
 */
export function DeliveriesSection({ webhook }: { webhook: Webhook }) {
  const queryClient = useQueryClient();
  const [failedOnly, setFailedOnly] = useState(false);
  const list = useInfiniteQuery(deliveriesQuery(webhook.id, failedOnly));
  const [note, setNote] = useState<{ text: string; bad?: boolean }>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.webhookDeliveries(webhook.id) });
  const ping = useMutation({
    mutationFn: () => pingWebhook(webhook.id),
    onMutate: () => setNote(undefined),
    onSuccess: (d) =>
      setNote({
        text:
          d.status === 'succeeded'
            ? `Test event delivered: HTTP ${d.responseCode}.`
            : `Test event failed: ${d.error ?? (d.responseCode === null ? 'no answer' : `HTTP ${d.responseCode}`)}.`,
        bad: d.status !== 'succeeded',
      }),
    onError: (e) => setNote({ text: words(e), bad: true }),
    onSettled: refresh,
  });
  const again = useMutation({
    mutationFn: (d: Delivery) => redeliver(webhook.id, d.id),
    onMutate: () => setNote(undefined),
    onSuccess: () => setNote({ text: 'Redelivery queued: it is listed first and sent in a moment.' }),
    onError: (e) => setNote({ text: words(e), bad: true }),
    onSettled: refresh,
  });
  const deliveries = list.data?.pages.flatMap((p) => p.deliveries) ?? [];
  return (
    <section className="panel" aria-labelledby="deliveries">
      <div className="adm-head">
        <h2 id="deliveries" className="panel-title">
          Deliveries
        </h2>
        <div className="adm-row-actions">
          <label className="checkbox-field">
            <input type="checkbox" checked={failedOnly} onChange={(e) => setFailedOnly(e.target.checked)} />
            Failed only
          </label>
          <Button
            onPress={() => void list.refetch()}
            isPending={list.isRefetching && !list.isFetchingNextPage}
          >
            Refresh
          </Button>
          <Button variant="primary" onPress={() => ping.mutate()} isPending={ping.isPending}>
            Send test event
          </Button>
        </div>
      </div>
      <p role="status" className={`adm-delivery-note ${note?.bad ? 'field-error' : 'adm-note'}`}>
        {note?.text}
      </p>
      {list.isPending ? (
        <Loading label="Loading deliveries…" />
      ) : list.isError ? (
        <ErrorState
          title="The deliveries could not be loaded."
          error={list.error}
          onRetry={() => void list.refetch()}
        />
      ) : deliveries.length === 0 ? (
        <p className="adm-note">
          {failedOnly ? 'No failed deliveries.' : 'No deliveries yet. Send a test event to try the endpoint.'}
        </p>
      ) : (
        <>
          <ul className="adm-deliveries" aria-label="Deliveries">
            {deliveries.map((d) => (
              <DeliveryRow
                key={d.id}
                webhookId={webhook.id}
                delivery={d}
                onRedeliver={() => again.mutate(d)}
                redelivering={again.isPending && again.variables?.id === d.id}
              />
            ))}
          </ul>
          {list.hasNextPage && (
            <Button onPress={() => void list.fetchNextPage()} isPending={list.isFetchingNextPage}>
              Show older deliveries
            </Button>
          )}
        </>
      )}
    </section>
  );
}

function DeliveryRow({
  webhookId,
  delivery: d,
  onRedeliver,
  redelivering,
}: {
  webhookId: string;
  delivery: Delivery;
  onRedeliver: () => void;
  redelivering: boolean;
}) {
  const [open, setOpen] = useState(false);
  // When it was queued: the order of the log. The last attempt, when later, is in the details.
  const when = formatDateTime(d.createdAt);
  return (
    <li className={`adm-delivery adm-delivery-${d.status}`}>
      <div className="adm-delivery-line">
        <span className="adm-delivery-status">{STATUS_WORDS[d.status]}</span>
        <span>{d.responseCode === null ? 'no response' : `HTTP ${d.responseCode}`}</span>
        <span>{d.eventType}</span>
        <span>{when}</span>
        <span>{d.durationMs === null ? '' : formatDuration(d.durationMs)}</span>
        <span>{d.attempts === 1 ? '1 attempt' : `${d.attempts} attempts`}</span>
        <span className="adm-row-actions">
          <Button
            variant="ghost"
            onPress={() => setOpen(!open)}
            aria-expanded={open}
            aria-label={`${open ? 'Hide' : 'Show'} details of the ${d.eventType} delivery of ${when}`}
          >
            {open ? 'Hide' : 'Details'}
          </Button>
          <Button
            onPress={onRedeliver}
            isPending={redelivering}
            aria-label={`Redeliver the ${d.eventType} delivery of ${when}`}
          >
            Redeliver
          </Button>
        </span>
      </div>
      {d.error && <p className="adm-delivery-error">{d.error}</p>}
      {open && <DeliveryDetails webhookId={webhookId} delivery={d} />}
    </li>
  );
}

/** The receiver's answer (kept with the record) and the body that was sent (read on opening). */
function DeliveryDetails({ webhookId, delivery: d }: { webhookId: string; delivery: Delivery }) {
  const sent = useQuery(deliveryQuery(webhookId, d.id));
  return (
    <div className="adm-delivery-details">
      <h3 className="field-label">Response body</h3>
      {d.responseBody ? (
        <pre className="adm-pre" tabIndex={0} aria-label="Response body">
          {d.responseBody}
        </pre>
      ) : (
        <p className="adm-note">
          {d.responseCode === null ? 'No answer was received.' : 'The answer was empty.'}
        </p>
      )}
      <h3 className="field-label">Body sent</h3>
      {sent.isPending ? (
        <Loading label="Loading the body…" />
      ) : sent.isError ? (
        <p className="field-error">{words(sent.error)}</p>
      ) : (
        <pre className="adm-pre" tabIndex={0} aria-label="Body sent">
          {sent.data.body}
        </pre>
      )}
    </div>
  );
}
