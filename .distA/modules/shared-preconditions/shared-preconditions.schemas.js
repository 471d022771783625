import { Type } from 'typebox';
import { Html, QueryList, SortOrder } from '../../http/schemas.js';
/** extensions.md §2 Precondition, as a shared precondition: titled and versioned. */
export const SharedPrecondition = Type.Object({
    projectId: Type.String(),
    id: Type.Integer(),
    version: Type.Integer(),
    isLatest: Type.Boolean(),
    type: Type.Literal('shared'),
    title: Type.String(),
    text: Type.String({ description: 'HTML' }),
    createdAt: Type.String({ description: 'when the shared precondition was created' }),
    updatedAt: Type.String({ description: 'when this version was made' }),
    deletedAt: Type.Optional(Type.String({ description: 'present once it was deleted' })),
});
export const SharedPreconditionListItem = Type.Object({
    ...SharedPrecondition.properties,
    tcaseCount: Type.Optional(Type.Integer({ description: 'live test cases whose latest version uses it; with include=tcaseCount' })),
});
/** extensions.md §4: the list is a bare array. */
export const SharedPreconditionList = Type.Array(SharedPreconditionListItem);
export const SHARED_PRECONDITION_SORT_FIELDS = {
    id: 'id',
    title: 'title',
    created_at: 'created_at',
    createdAt: 'created_at',
    updated_at: 'updated_at',
    updatedAt: 'updated_at',
};
export const SharedPreconditionListQuery = Type.Object({
    sortField: Type.Optional(Type.String({
        enum: Object.keys(SHARED_PRECONDITION_SORT_FIELDS),
        description: 'id, title, created_at, updated_at (camelCase accepted); default id',
    })),
    sortOrder: Type.Optional(SortOrder),
    include: Type.Optional(QueryList(Type.String({ enum: ['tcaseCount'] }))),
});
export const SharedPreconditionParams = Type.Object({
    project: Type.String({ minLength: 1, maxLength: 64 }),
    id: Type.Integer({ minimum: 1 }),
});
export const SharedPreconditionVersionParams = Type.Object({
    project: Type.String({ minLength: 1, maxLength: 64 }),
    id: Type.Integer({ minimum: 1 }),
    version: Type.Integer({ minimum: 1 }),
});
export const CreateSharedPreconditionBody = Type.Object({
    title: Type.String({ description: '1-255 characters' }),
    text: Html(),
}, { additionalProperties: false });
export const UpdateSharedPreconditionBody = Type.Object({
    title: Type.Optional(Type.String({ description: '1-255 characters' })),
    text: Type.Optional(Html()),
}, { additionalProperties: false });
//# sourceMappingURL=shared-preconditions.schemas.js.map