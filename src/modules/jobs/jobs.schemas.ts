import { Type, type Static } from 'typebox';

const JobStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('running'),
  Type.Literal('done'),
  Type.Literal('failed'),
]);

const JobKind = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'webhook.event, webhook.deliver or tracker.comment',
});

export const JobListQuery = Type.Object(
  {
    status: Type.Optional(JobStatus),
    kind: Type.Optional(JobKind),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    before: Type.Optional(
      Type.Integer({ minimum: 1, description: 'jobs older than this id (the next page)' }),
    ),
  },
  { additionalProperties: false },
);
export type JobListQuery = Static<typeof JobListQuery>;

export const Job = Type.Object({
  id: Type.Integer(),
  kind: Type.String(),
  status: JobStatus,
  attempts: Type.Integer(),
  maxAttempts: Type.Integer(),
  runAt: Type.String({ description: 'when it runs (next) or ran last' }),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
  subject: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'what the job is about: {deliveryId, webhookId, webhookName, eventType} (webhook.deliver; the last three while the delivery is kept), {linkId} (tracker.comment), {eventId, type} (webhook.event)',
  }),
});
export type Job = Static<typeof Job>;

export const JobList = Type.Object({ jobs: Type.Array(Job) });
export const JobParams = Type.Object({ jobId: Type.Integer({ minimum: 1 }) });

export const RetryAllQuery = Type.Object({ kind: Type.Optional(JobKind) }, { additionalProperties: false });
export const RetryAllAnswer = Type.Object({
  retried: Type.Integer({ description: 'how many failed jobs are pending again (0 when none had failed)' }),
});
