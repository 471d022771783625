import { Type, type Static } from 'typebox';

/** Issue 15 §2: the events a webhook may subscribe to (docs/api-decisions.md#events-and-their-payloads has their payloads). */
export const WEBHOOK_EVENT_TYPES = [
  'run_created',
  'run_updated',
  'run_closed',
  'plan_created',
  'plan_updated',
  'tcase_created',
  'tcases_created',
  'tcase_edited',
  'tcases_edited',
  'result_created',
  'results_created',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WebhookEventTypeSchema = Type.Unsafe<WebhookEventType>({
  type: 'string',
  enum: [...WEBHOOK_EVENT_TYPES],
});

const HeaderMap = Type.Record(
  Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$" }),
  Type.String({ maxLength: 4096 }),
  {
    description: 'extra request headers (encrypted at rest; never returned, only their names)',
    additionalProperties: false,
  },
);

const ENDPOINT =
  'https URL (http only for hosts allowed by CASEBOOK_OUTBOUND_ALLOW or CASEBOOK_WEBHOOK_ALLOW_PRIVATE)';

const fields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  endpoint: Type.String({ minLength: 1, maxLength: 2048, description: ENDPOINT }),
  secret: Type.String({
    minLength: 8,
    maxLength: 512,
    description: 'signs every delivery (HMAC-SHA256); write-only',
  }),
  headers: HeaderMap,
  eventTypes: Type.Array(WebhookEventTypeSchema, { minItems: 1, uniqueItems: true }),
  allowAllProjects: Type.Boolean({ description: 'every project, or only projectIds' }),
  projectIds: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { uniqueItems: true, maxItems: 1000 }),
  payload: Type.String({
    minLength: 1,
    maxLength: 65536,
    description:
      'body template; ${path} placeholders (e.g. ${event}, ${project.code}, ${object.title}) are replaced by JSON-escaped values',
  }),
  enabled: Type.Boolean(),
};

export const CreateWebhookBody = Type.Object(
  {
    name: fields.name,
    endpoint: fields.endpoint,
    secret: Type.Optional(fields.secret),
    headers: Type.Optional(fields.headers),
    eventTypes: fields.eventTypes,
    allowAllProjects: Type.Optional(fields.allowAllProjects),
    projectIds: Type.Optional(fields.projectIds),
    payload: Type.Optional(fields.payload),
    enabled: Type.Optional(fields.enabled),
  },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    endpoint: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: `${ENDPOINT}; an endpoint on another origin (scheme, host, port) needs the stored secret and headers sent again in the same request (the same or new values, or null)`,
      }),
    ),
    secret: Type.Optional(Type.Union([fields.secret, Type.Null()], { description: 'null removes it' })),
    headers: Type.Optional(Type.Union([fields.headers, Type.Null()])),
    eventTypes: Type.Optional(fields.eventTypes),
    allowAllProjects: Type.Optional(fields.allowAllProjects),
    projectIds: Type.Optional(fields.projectIds),
    payload: Type.Optional(
      Type.Union([fields.payload, Type.Null()], { description: 'null: the default payload' }),
    ),
    enabled: Type.Optional(Type.Boolean({ description: 'true re-enables a webhook disabled after failing' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const Webhook = Type.Object({
  id: Type.String(),
  name: Type.String(),
  endpoint: Type.String(),
  hasSecret: Type.Boolean(),
  headerNames: Type.Array(Type.String()),
  eventTypes: Type.Array(WebhookEventTypeSchema),
  allowAllProjects: Type.Boolean(),
  projectIds: Type.Array(Type.String()),
  payload: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean(),
  disabledReason: Type.Union([Type.String(), Type.Null()], {
    description: 'why the service disabled it (24 h of failed deliveries), or null',
  }),
  failingSince: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type Webhook = Static<typeof Webhook>;
export const WebhookList = Type.Object({ webhooks: Type.Array(Webhook) });

export const WebhookParams = Type.Object({ webhookId: Type.String({ minLength: 1, maxLength: 64 }) });
export const DeliveryParams = Type.Object({
  webhookId: Type.String({ minLength: 1, maxLength: 64 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 64 }),
});

export const Delivery = Type.Object({
  id: Type.String({ description: 'also the X-Casebook-Delivery header' }),
  eventId: Type.String({ description: 'also the X-Casebook-Event-Id header; repeats share it' }),
  eventType: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  responseCode: Type.Union([Type.Integer(), Type.Null()]),
  responseBody: Type.Union([Type.String(), Type.Null()], {
    description:
      "the first 4 KiB of the receiver's answer; the webhook's secret and header values in it are masked as ****",
  }),
  error: Type.Union([Type.String(), Type.Null()]),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Type.String(),
  lastAttemptAt: Type.Union([Type.String(), Type.Null()]),
  nextAttemptAt: Type.Union([Type.String(), Type.Null()]),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
});
export type Delivery = Static<typeof Delivery>;
export const DeliveryWithBody = Type.Intersect([Delivery, Type.Object({ body: Type.String() })]);
export const DeliveryCount = Type.Object({
  deliveries: Type.Integer({
    description: 'delivery records of the webhook (kept for the retention period)',
  }),
  pending: Type.Integer({ description: 'of those, the deliveries still waiting to be sent or retried' }),
});
export type DeliveryCount = Static<typeof DeliveryCount>;

export const DeliveryList = Type.Object({
  deliveries: Type.Array(Delivery),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'pass as `cursor` for the next (older) page; null on the last page',
  }),
});
export const DeliveryListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, default: 0, description: 'slow on deep pages: prefer cursor' }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "the previous page's nextCursor: the page after it, as fast at any depth",
      }),
    ),
    status: Type.Optional(
      Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], {
        description: 'only deliveries in this state (the log\'s "failed only")',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PayloadPreviewBody = Type.Object(
  {
    payload: Type.Optional(
      Type.String({ minLength: 1, maxLength: 65536, description: 'the template; absent: the default body' }),
    ),
    eventType: Type.Optional(
      Type.Unsafe<WebhookEventType>({
        type: 'string',
        enum: [...WEBHOOK_EVENT_TYPES],
        description: 'the sample event rendered (default run_created)',
      }),
    ),
  },
  { additionalProperties: false },
);
export const PayloadPreview = Type.Object({
  eventType: Type.String(),
  body: Type.String({ description: 'the body a receiver would get for the sample event' }),
  jsonError: Type.Union([Type.String(), Type.Null()], {
    description: 'why the body is not JSON (it is still sent as rendered, as application/json), or null',
  }),
});
export type PayloadPreview = Static<typeof PayloadPreview>;
