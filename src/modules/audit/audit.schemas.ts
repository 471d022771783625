import { Type, type Static } from 'typebox';

export const AuditUser = Type.Object({ id: Type.Integer(), name: Type.String(), email: Type.String() });

export const AuditEvent = Type.Object({
  id: Type.Integer(),
  user: Type.Union([AuditUser, Type.Null()], { description: 'null for system events' }),
  action: Type.String(),
  ip: Type.String(),
  userAgent: Type.String(),
  createdAt: Type.String({ description: 'ISO 8601' }),
  meta: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'omitted when empty' })),
});
export type AuditEvent = Static<typeof AuditEvent>;

export const AuditLogQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'events with a greater id; 0 (default) = from the first event of the current month, UTC (D13)',
    }),
  ),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: '1 to 1000; default 100' })),
  action: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: 20,
      description: 'only events of these actions: repeated keys or one comma-separated value (up to 20)',
    }),
  ),
  userId: Type.Optional(Type.Integer({ minimum: 1, description: 'only events of this person' })),
  from: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'only events at or after this time (ISO 8601); with after 0 the page starts here, not at the month',
    }),
  ),
  to: Type.Optional(
    Type.String({ format: 'date-time', description: 'only events before this time (ISO 8601); after from' }),
  ),
});
export type AuditLogQuery = Static<typeof AuditLogQuery>;

export const AuditLogPage = Type.Object({
  after: Type.Integer({ description: 'id of the last event returned, or the request after when none' }),
  count: Type.Integer({ description: 'number of events returned' }),
  events: Type.Array(AuditEvent),
});
export type AuditLogPage = Static<typeof AuditLogPage>;
