import { Type } from 'typebox';
import { Html, QueryList, SortOrder } from '../../http/schemas.js';
/** public-api.md SubStep: version and isLatest are the parent's. */
export const SharedSubStep = Type.Object({
    id: Type.Integer(),
    type: Type.Literal('shared_sub_step'),
    version: Type.Integer(),
    isLatest: Type.Boolean(),
    description: Type.String({ description: 'HTML' }),
    expected: Type.String({ description: 'HTML' }),
    deletedAt: Type.Optional(Type.String({ description: "the shared step's deletion time" })),
});
/** extensions.md §2 Step, as a shared step: title and sub-steps, versioned. */
export const SharedStep = Type.Object({
    id: Type.Integer(),
    version: Type.Integer(),
    isLatest: Type.Boolean(),
    type: Type.Literal('shared'),
    title: Type.String(),
    subSteps: Type.Array(SharedSubStep),
    deletedAt: Type.Optional(Type.String({ description: 'present once the shared step was deleted' })),
});
export const SharedStepListItem = Type.Object({
    ...SharedStep.properties,
    tcaseCount: Type.Optional(Type.Integer({ description: 'live test cases whose latest version uses it; with include=tcaseCount' })),
});
export const SharedStepList = Type.Object({ sharedSteps: Type.Array(SharedStepListItem) });
export const SHARED_STEP_SORT_FIELDS = {
    id: 'id',
    title: 'title',
    created_at: 'created_at',
    createdAt: 'created_at',
    updated_at: 'updated_at',
    updatedAt: 'updated_at',
};
export const SharedStepListQuery = Type.Object({
    sortField: Type.Optional(Type.String({
        enum: Object.keys(SHARED_STEP_SORT_FIELDS),
        description: 'id, title, created_at, updated_at (camelCase accepted); default id',
    })),
    sortOrder: Type.Optional(SortOrder),
    include: Type.Optional(QueryList(Type.String({ enum: ['tcaseCount'] }))),
});
export const SharedStepParams = Type.Object({
    project: Type.String({ minLength: 1, maxLength: 64 }),
    id: Type.Integer({ minimum: 1 }),
});
export const SharedStepVersionParams = Type.Object({
    project: Type.String({ minLength: 1, maxLength: 64 }),
    id: Type.Integer({ minimum: 1 }),
    version: Type.Integer({ minimum: 1 }),
});
export const SubStepInput = Type.Object({
    description: Type.Optional(Html()),
    expected: Type.Optional(Html()),
}, { additionalProperties: false });
export const CreateSharedStepBody = Type.Object({
    title: Type.String({ description: '1-255 characters' }),
    subSteps: Type.Array(SubStepInput, {
        description: '1-100 sub-steps, each with a description or an expected result',
    }),
}, { additionalProperties: false });
export const UpdateSharedStepBody = Type.Object({
    title: Type.Optional(Type.String({ description: '1-255 characters' })),
    subSteps: Type.Optional(Type.Array(SubStepInput, { description: 'replaces every sub-step' })),
}, { additionalProperties: false });
//# sourceMappingURL=shared-steps.schemas.js.map