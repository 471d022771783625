import { Type, type Static } from 'typebox';
import { DueAt } from '../runs.schemas.js';

export const UpdateRunBody = Type.Object(
  {
    title: Type.Optional(
      Type.String({
        description:
          '1-255 characters; unique among the runs of the project outside plans, or in its plan (D10)',
      }),
    ),
    description: Type.Optional(Type.String({ description: 'HTML, max 512 characters, sanitised (D22)' })),
    assignmentId: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], {
        description:
          'an active user with a role above viewer who can open the project; null removes the assignee',
      }),
    ),
    milestoneId: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], {
        description: 'a milestone of the project, not archived; null removes the milestone',
      }),
    ),
    dueAt: Type.Optional(DueAt('null removes the due date')),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateRunBody = Static<typeof UpdateRunBody>;
