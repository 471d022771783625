import { Type, type Static } from 'typebox';
import { ProjectParams } from '../../http/schemas.js';

export const Milestone = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
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

export const CreateMilestoneBody = Type.Object(
  { title: Type.String({ description: '1-255 characters' }) },
  { additionalProperties: false },
);
export type CreateMilestoneBody = Static<typeof CreateMilestoneBody>;

export const MilestoneParams = Type.Object({
  project: ProjectParams.properties.project,
  milestone: Type.Integer({ minimum: 1 }),
});
export type MilestoneParams = Static<typeof MilestoneParams>;
