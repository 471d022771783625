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

const filterFields = {
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
  order: Type.Optional(
    Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
      description:
        "asc (default, D13): oldest first; desc: newest first, the next page continuing with before = the answer's after",
    }),
  ),
};

export const AuditLogQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'events with a greater id; 0 (default) = from the first event of the current month, UTC (D13)',
    }),
  ),
  before: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: 'events with a smaller id: the cursor of the next page when order is desc',
    }),
  ),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: '1 to 1000; default 100' })),
  ...filterFields,
});
export type AuditLogQuery = Static<typeof AuditLogQuery>;

export const AuditLogPage = Type.Object({
  after: Type.Integer({ description: 'id of the last event returned, or the request after when none' }),
  count: Type.Integer({ description: 'number of events returned' }),
  events: Type.Array(AuditEvent),
});
export type AuditLogPage = Static<typeof AuditLogPage>;

/** The export's filters: those of a page, without its paging (every matching event is written). */
export const AuditExportQuery = Type.Object(filterFields, { additionalProperties: false });
export type AuditFilterQuery = Static<typeof AuditExportQuery> & { after?: number; before?: number };

export const AuditActionList = Type.Object({
  actions: Type.Array(
    Type.Object({
      action: Type.String(),
      area: Type.String({
        description: 'what the action concerns, for grouping (Sign-in, Test cases, Runs…)',
      }),
      label: Type.String({ description: 'the words the log viewer shows' }),
      contract: Type.Boolean({
        description: "one of the public API's event table; otherwise Casebook's own",
      }),
    }),
  ),
});
