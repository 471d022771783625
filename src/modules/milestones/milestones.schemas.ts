import { Type, type Static } from 'typebox';
import { ProjectParams } from '../../http/schemas.js';

export const MILESTONE_TITLE_MAX = 255;
export const MILESTONE_DESCRIPTION_MAX = 2000;

export const Milestone = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  description: Type.String({ description: 'plain text, "" when none' }),
  // docs/api-decisions.md#response-shapes: an optional scalar is left out rather than null.
  due: Type.Optional(Type.String({ description: 'the due date, YYYY-MM-DD; absent when none' })),
  archived: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  // docs/api-decisions.md#response-shapes: milestone archivedAt is not among the nullable keys, so it is left out while active.
  archivedAt: Type.Optional(Type.String({ description: 'present only when archived' })),
});
export type Milestone = Static<typeof Milestone>;

export const MilestoneList = Type.Object({ milestones: Type.Array(Milestone) });

export const MilestoneListQuery = Type.Object({
  archived: Type.Optional(
    Type.Boolean({ description: 'true: only archived; false: only active; omitted: all' }),
  ),
});
export type MilestoneListQuery = Static<typeof MilestoneListQuery>;

const Description = Type.String({
  description: `plain text, at most ${MILESTONE_DESCRIPTION_MAX} characters`,
});
const Due = (nullable: string) =>
  Type.Union([Type.String(), Type.Null()], {
    description: `a calendar date YYYY-MM-DD; ${nullable}`,
  });

export const CreateMilestoneBody = Type.Object(
  {
    title: Type.String({ description: '1-255 characters' }),
    description: Type.Optional(Description),
    due: Type.Optional(Due('null or absent: no due date')),
  },
  { additionalProperties: false },
);
export type CreateMilestoneBody = Static<typeof CreateMilestoneBody>;

export const UpdateMilestoneBody = Type.Object(
  {
    title: Type.Optional(Type.String({ description: '1-255 characters; titles need not be unique' })),
    description: Type.Optional(Description),
    due: Type.Optional(Due('null removes the due date')),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateMilestoneBody = Static<typeof UpdateMilestoneBody>;

export const MilestoneParams = Type.Object({
  project: ProjectParams.properties.project,
  milestone: Type.Integer({ minimum: 1 }),
});
export type MilestoneParams = Static<typeof MilestoneParams>;
