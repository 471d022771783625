import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { api, isApiError, unwrap } from '../../../api/client';
import { queryKeys } from '../../../api/keys';
import type { paths } from '../../../api/schema';
import { sentence, UNREACHABLE, type FormErrors } from '../../../lib/useForm';

export const webhooksQuery = queryOptions({
  queryKey: queryKeys.webhooks(),
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/webhook'))).webhooks,
});

export const webhookQuery = (webhookId: string) =>
  queryOptions({
    queryKey: queryKeys.webhook(webhookId),
    queryFn: () => unwrap(api.GET('/api/public/v0/webhook/{webhookId}', { params: { path: { webhookId } } })),
  });

const PAGE = 25;

/** The deliveries, newest first, a page at a time by cursor: as fast on the hundredth page as on the first. */
export const deliveriesQuery = (webhookId: string, failedOnly = false) =>
  infiniteQueryOptions({
    queryKey: queryKeys.webhookDeliveryPages(webhookId, failedOnly ? 'failed' : 'all'),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/api/public/v0/webhook/{webhookId}/delivery', {
          params: {
            path: { webhookId },
            query: {
              limit: PAGE,
              ...(pageParam === undefined ? {} : { cursor: pageParam }),
              ...(failedOnly ? { status: 'failed' as const } : {}),
            },
          },
        }),
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });

export const deliveryQuery = (webhookId: string, deliveryId: string) =>
  queryOptions({
    queryKey: queryKeys.webhookDelivery(webhookId, deliveryId),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/webhook/{webhookId}/delivery/{deliveryId}', {
          params: { path: { webhookId, deliveryId } },
        }),
      ),
  });

export type Webhook = Awaited<ReturnType<typeof webhooksQuery.queryFn & {}>>[number];
export type Delivery = Awaited<
  ReturnType<ReturnType<typeof deliveriesQuery>['queryFn'] & {}>
>['deliveries'][number];
export type CreateBody = NonNullable<
  paths['/api/public/v0/webhook']['post']['requestBody']
>['content']['application/json'];
export type UpdateBody = NonNullable<
  paths['/api/public/v0/webhook/{webhookId}']['patch']['requestBody']
>['content']['application/json'];
export type EventType = CreateBody['eventTypes'][number];

export const createWebhook = (body: CreateBody) => unwrap(api.POST('/api/public/v0/webhook', { body }));
export const updateWebhook = (webhookId: string, body: UpdateBody) =>
  unwrap(api.PATCH('/api/public/v0/webhook/{webhookId}', { params: { path: { webhookId } }, body }));
/** Its delivery records and the ones still waiting: what the delete dialog names. */
export const deliveryCountQuery = (webhookId: string) =>
  queryOptions({
    queryKey: [...queryKeys.webhookDeliveries(webhookId), 'count'] as const,
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/webhook/{webhookId}/delivery/count', { params: { path: { webhookId } } }),
      ),
  });

export const deleteWebhook = (webhookId: string) =>
  unwrap(api.DELETE('/api/public/v0/webhook/{webhookId}', { params: { path: { webhookId } } }));
export const pingWebhook = (webhookId: string) =>
  unwrap(api.POST('/api/public/v0/webhook/{webhookId}/ping', { params: { path: { webhookId } } }));
export const redeliver = (webhookId: string, deliveryId: string) =>
  unwrap(
    api.POST('/api/public/v0/webhook/{webhookId}/delivery/{deliveryId}/redeliver', {
      params: { path: { webhookId, deliveryId } },
    }),
  );
export const previewPayload = (body: { payload?: string; eventType?: EventType }) =>
  unwrap(api.POST('/api/public/v0/webhook/payload-preview', { body }));

/** The events a webhook may subscribe to, in words (docs/api-decisions.md#events-and-their-payloads). */
export const EVENTS: { type: EventType; label: string }[] = [
  { type: 'run_created', label: 'Run created' },
  { type: 'run_updated', label: 'Run updated' },
  { type: 'run_closed', label: 'Run closed' },
  { type: 'plan_created', label: 'Plan created' },
  { type: 'plan_updated', label: 'Plan updated' },
  { type: 'tcase_created', label: 'Test case created' },
  { type: 'tcases_created', label: 'Test cases created in bulk' },
  { type: 'tcase_edited', label: 'Test case edited' },
  { type: 'tcases_edited', label: 'Test cases moved or tagged in bulk' },
  { type: 'result_created', label: 'Result recorded' },
  { type: 'results_created', label: 'Results recorded in a batch' },
];

/** Refusals beside their field (`/projectIds/2` is the projects field, `/headers` the headers). */
export function webhookErrorsOf(e: unknown): FormErrors {
  if (!isApiError(e)) return { form: UNREACHABLE, fields: {} };
  const fields: Record<string, string> = {};
  for (const d of e.body.details ?? []) {
    const field = d.path.split('/').filter(Boolean)[0];
    if (field && !fields[field]) fields[field] = sentence(d.message);
  }
  if (Object.keys(fields).length === 0 && e.status === 409) fields.name = sentence(e.message);
  return Object.keys(fields).length > 0 ? { fields } : { form: sentence(e.message), fields: {} };
}

export const words = (e: unknown) => (isApiError(e) ? sentence(e.message) : UNREACHABLE);
