import { Type, type Static } from 'typebox';

export const MY_WORK_LIMIT_DEFAULT = 100;
export const MY_WORK_LIMIT_MAX = 500;

export const MyWorkQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MY_WORK_LIMIT_MAX,
        description: `items per page, default ${MY_WORK_LIMIT_DEFAULT}`,
      }),
    ),
    today: Type.Optional(
      Type.String({
        maxLength: 10,
        description:
          "the caller's calendar day, YYYY-MM-DD, that `overdue` is read against; default: today in UTC",
      }),
    ),
  },
  { additionalProperties: false },
);
export type MyWorkQuery = Static<typeof MyWorkQuery>;

export const MyWorkRun = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  project: Type.Object({ id: Type.String(), code: Type.String(), title: Type.String() }),
  dueAt: Type.Optional(Type.String({ description: "the run's due date, YYYY-MM-DD; absent when none" })),
  overdue: Type.Optional(Type.Boolean({ description: "with dueAt: the run's due date is before today" })),
  open: Type.Integer({ description: "the caller's cases of this run without a result" }),
  done: Type.Integer({ description: "the caller's cases of this run with a result" }),
});

export const MyWorkItem = Type.Object({
  run: MyWorkRun,
  tcase: Type.Object({
    id: Type.String(),
    seq: Type.Integer(),
    title: Type.String(),
    priority: Type.String(),
  }),
  dueAt: Type.Optional(
    Type.String({
      description: "the assignment's due date, else the run's, YYYY-MM-DD; absent when neither has one",
    }),
  ),
  overdue: Type.Boolean({ description: 'dueAt is before today (the case is open: it has no result)' }),
});
export type MyWorkItem = Static<typeof MyWorkItem>;

export const MyWorkPage = Type.Object({
  total: Type.Integer({ description: 'open cases assigned to the caller in open runs (every page)' }),
  offset: Type.Integer(),
  limit: Type.Integer(),
  open: Type.Integer({ description: 'same as total' }),
  done: Type.Integer({ description: 'cases of those runs assigned to the caller that have a result' }),
  overdue: Type.Integer({ description: 'of the open cases, those whose due date is before today' }),
  data: Type.Array(MyWorkItem, {
    description:
      'open cases grouped by run (the run whose earliest due date comes first first; runs without one last), ' +
      'in a run by due date (none last), then by sequence number',
  }),
});
export type MyWorkPage = Static<typeof MyWorkPage>;
