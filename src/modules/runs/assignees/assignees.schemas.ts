import { Type, type Static } from 'typebox';
import { DueAt } from '../runs.schemas.js';

export const AssignRunTcasesBody = Type.Object(
  {
    tcaseIds: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
      minItems: 1,
      maxItems: 10000,
      description: 'ids of test cases in the run; repeats count once',
    }),
    assigneeId: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description:
        'an active user with a role above viewer who has access to the project; null: nobody (unassigns)',
    }),
    dueAt: Type.Optional(
      DueAt(
        'null removes it; absent keeps each case’s own. Unassigning (assigneeId null) removes it and takes no date',
      ),
    ),
  },
  { additionalProperties: false },
);
export type AssignRunTcasesBody = Static<typeof AssignRunTcasesBody>;

export const AssignRunTcasesResponse = Type.Object({
  assigned: Type.Integer({ description: 'test cases named (each once); all of them now have this assignee' }),
  changed: Type.Integer({ description: 'of those, the ones whose assignee was another or nobody before' }),
});
export type AssignRunTcasesResponse = Static<typeof AssignRunTcasesResponse>;

export const RunAssignable = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Type.String(),
});

export const RunAssignableList = Type.Object({
  users: Type.Array(RunAssignable, {
    description:
      "who can be assigned the run's test cases, by name: active, above viewer, with project access",
  }),
});
export type RunAssignableList = Static<typeof RunAssignableList>;
