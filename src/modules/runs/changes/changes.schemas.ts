import { Type, type Static } from 'typebox';
import { StatusCounts } from '../runs.schemas.js';

export const CHANGES_MAX = 1000;

export const RunChangesQuery = Type.Object(
  {
    since: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'the cursor of the previous answer; without it only the current cursor and counts come back',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RunChangesQuery = Static<typeof RunChangesQuery>;

export const RunChangesResponse = Type.Object({
  cursor: Type.Integer({ description: 'send it as `since` next time' }),
  closed: Type.Boolean(),
  membershipVersion: Type.Integer({
    description:
      'moves when cases joined or left the run (add/remove, live-run propagation): reload the list then',
  }),
  statusCounts: StatusCounts,
  truncated: Type.Boolean({
    description: `true when more than ${CHANGES_MAX} cases changed (or the cursor is unknown): reload the whole list`,
  }),
  tcases: Type.Array(
    Type.Object({
      id: Type.String(),
      seq: Type.Integer(),
      status: Type.String({ description: 'the run test case status now (D18)' }),
      isAutomated: Type.Boolean(),
      inRun: Type.Boolean(),
      latestResult: Type.Object({
        id: Type.Integer(),
        status: Type.String(),
        authorId: Type.Integer(),
        timeTaken: Type.Union([Type.Number(), Type.Null()]),
        createdAt: Type.String(),
      }),
    }),
    { description: 'run test cases with a result recorded after `since`, oldest change first' },
  ),
});
export type RunChangesResponse = Static<typeof RunChangesResponse>;
