import { Type, type Static } from 'typebox';
import { QueryList, SortOrder } from '../../http/schemas.js';

/** docs/api-decisions.md#shapes: a test case's requirement. */
export const Requirement = Type.Object({
  id: Type.String(),
  text: Type.String(),
  url: Type.String({ description: 'an absolute URL, or "" when none' }),
});
export type Requirement = Static<typeof Requirement>;

export const RequirementListItem = Type.Object({
  id: Type.String(),
  text: Type.String(),
  url: Type.String({ description: 'an absolute URL, or "" when none' }),
  integrationLink: Type.Null({ description: 'always null: requirements are not linked to trackers yet' }),
  tcaseCount: Type.Optional(
    Type.Integer({ description: 'live test cases whose latest version links it; with include=tcaseCount' }),
  ),
});
export type RequirementListItem = Static<typeof RequirementListItem>;

export const RequirementList = Type.Object({ requirements: Type.Array(RequirementListItem) });

export const REQUIREMENT_SORT_FIELDS = {
  created_at: 'created_at',
  createdAt: 'created_at',
  text: 'text',
} as const;
export type RequirementSortColumn = (typeof REQUIREMENT_SORT_FIELDS)[keyof typeof REQUIREMENT_SORT_FIELDS];

export const RequirementListQuery = Type.Object({
  sortField: Type.Optional(
    Type.String({
      enum: Object.keys(REQUIREMENT_SORT_FIELDS),
      description: 'created_at or text (camelCase accepted)',
    }),
  ),
  sortOrder: Type.Optional(SortOrder),
  include: Type.Optional(QueryList(Type.String({ enum: ['tcaseCount'] }))),
});
export type RequirementListQuery = Static<typeof RequirementListQuery>;

/** What a test case sends to create or link a requirement. */
export interface RequirementInput {
  text: string;
  url?: string;
}
