import { Type, type Static } from 'typebox';

import { STATUS_IDS } from '../../lib/statuses.js';

/** docs/api-decisions.md#shapes: the nine status ids (one list, lib/statuses.ts) and the named colours (never hex). */
export { BUILT_IN_STATUS_IDS, CUSTOM_STATUS_IDS, STATUS_IDS, type StatusId } from '../../lib/statuses.js';
export const STATUS_COLORS = [
  'blue',
  'gray',
  'red',
  'orange',
  'yellow',
  'green',
  'teal',
  'indigo',
  'purple',
  'pink',
] as const;
export type StatusColor = (typeof STATUS_COLORS)[number];

/** The real product caps status names at 16 characters; its clients validate the same. */
export const STATUS_NAME_MAX = 16;

export const Status = Type.Object({
  id: Type.String({ enum: [...STATUS_IDS] }),
  name: Type.String(),
  color: Type.String({ enum: [...STATUS_COLORS] }),
  isActive: Type.Boolean(),
  isDefault: Type.Boolean({ description: 'true for the five built-in statuses, which cannot be changed' }),
});
export type Status = Static<typeof Status>;

export const StatusList = Type.Object({ statuses: Type.Array(Status) });

// Ids, colours and names are checked in the service so that the 400 names the offending entry clearly.
export const UpdateStatusesBody = Type.Object(
  {
    statuses: Type.Array(
      Type.Object(
        {
          id: Type.String({ description: 'custom1..custom4' }),
          name: Type.String({ description: `1-${STATUS_NAME_MAX} characters` }),
          color: Type.String({ description: STATUS_COLORS.join(' | ') }),
          isActive: Type.Boolean(),
          // Accepted (and ignored) so that a client can send back what GET returned.
          isDefault: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
  },
  { additionalProperties: false },
);
export type UpdateStatusesBody = Static<typeof UpdateStatusesBody>;

export const StatusUsage = Type.Object({
  statuses: Type.Array(
    Type.Object({
      id: Type.String({ description: 'custom1 to custom4' }),
      results: Type.Integer({ description: 'results recorded with the status, in every project' }),
    }),
  ),
});
export type StatusUsage = Static<typeof StatusUsage>;
