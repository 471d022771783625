import { Type, type Static } from 'typebox';
import { QueryList, SortOrder } from '../../http/schemas.js';

/** docs/api-decisions.md#shapes: a test case's tag. */
export const Tag = Type.Object({ id: Type.Integer(), title: Type.String() });
export type Tag = Static<typeof Tag>;

export const TagListItem = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  tcaseCount: Type.Optional(
    Type.Integer({
      description: 'live test cases whose latest version has the tag; with include=tcaseCount',
    }),
  ),
});
export type TagListItem = Static<typeof TagListItem>;

export const TagList = Type.Object({ tags: Type.Array(TagListItem) });

/** Snake_case column names and their camelCase spellings (docs/api-decisions.md#sorting). */
export const TAG_SORT_FIELDS = {
  id: 'id',
  title: 'title',
  created_at: 'created_at',
  createdAt: 'created_at',
} as const;
export type TagSortColumn = (typeof TAG_SORT_FIELDS)[keyof typeof TAG_SORT_FIELDS];

export const TagListQuery = Type.Object({
  sortField: Type.Optional(
    Type.String({
      enum: Object.keys(TAG_SORT_FIELDS),
      description: 'id, title, created_at (camelCase accepted)',
    }),
  ),
  sortOrder: Type.Optional(SortOrder),
  include: Type.Optional(QueryList(Type.String({ enum: ['tcaseCount'] }))),
});
export type TagListQuery = Static<typeof TagListQuery>;
