import { Type } from 'typebox';
import { ProjectParams } from '../../http/schemas.js';
export const Milestone = Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    archived: Type.Boolean(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    // extensions.md §1: milestone archivedAt is not among the nullable keys, so it is left out while active.
    archivedAt: Type.Optional(Type.String({ description: 'present only when archived' })),
});
export const MilestoneList = Type.Object({ milestones: Type.Array(Milestone) });
export const MilestoneListQuery = Type.Object({
    archived: Type.Optional(Type.Boolean({ description: 'true: only archived; false: only active; omitted: all' })),
});
export const CreateMilestoneBody = Type.Object({ title: Type.String({ description: '1-255 characters' }) }, { additionalProperties: false });
export const MilestoneParams = Type.Object({
    project: ProjectParams.properties.project,
    milestone: Type.Integer({ minimum: 1 }),
});
//# sourceMappingURL=milestones.schemas.js.map