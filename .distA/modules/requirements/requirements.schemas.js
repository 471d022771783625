import { Type } from 'typebox';
import { QueryList, SortOrder } from '../../http/schemas.js';
/** extensions.md §2: a test case's requirement. */
export const Requirement = Type.Object({
    id: Type.String(),
    text: Type.String(),
    url: Type.String({ description: 'an absolute URL, or "" when none' }),
});
export const RequirementListItem = Type.Object({
    id: Type.String(),
    text: Type.String(),
    url: Type.String({ description: 'an absolute URL, or "" when none' }),
    integrationLink: Type.Null({ description: 'always null: requirements are not linked to trackers yet' }),
    tcaseCount: Type.Optional(Type.Integer({ description: 'live test cases whose latest version links it; with include=tcaseCount' })),
});
export const RequirementList = Type.Object({ requirements: Type.Array(RequirementListItem) });
export const REQUIREMENT_SORT_FIELDS = {
    created_at: 'created_at',
    createdAt: 'created_at',
    text: 'text',
};
export const RequirementListQuery = Type.Object({
    sortField: Type.Optional(Type.String({
        enum: Object.keys(REQUIREMENT_SORT_FIELDS),
        description: 'created_at or text (camelCase accepted)',
    })),
    sortOrder: Type.Optional(SortOrder),
    include: Type.Optional(QueryList(Type.String({ enum: ['tcaseCount'] }))),
});
//# sourceMappingURL=requirements.schemas.js.map