import { Type, type Static } from 'typebox';
import { QueryList, SortOrder } from '../../http/schemas.js';
import type { SharedItemSortColumn } from './shared-items.repository.js';

/** `sortField` of a shared-item list (snake_case or camelCase) → the head column it sorts by. */
export const SHARED_ITEM_SORT_FIELDS = {
  id: 'id',
  title: 'title',
  created_at: 'created_at',
  createdAt: 'created_at',
  updated_at: 'updated_at',
  updatedAt: 'updated_at',
} as const satisfies Record<string, SharedItemSortColumn>;

export const SharedItemListQuery = Type.Object({
  sortField: Type.Optional(
    Type.String({
      enum: Object.keys(SHARED_ITEM_SORT_FIELDS),
      description: 'id, title, created_at, updated_at (camelCase accepted); default id',
    }),
  ),
  sortOrder: Type.Optional(SortOrder),
  include: Type.Optional(QueryList(Type.String({ enum: ['tcaseCount'] }))),
});
export type SharedItemListQuery = Static<typeof SharedItemListQuery>;

export const SharedItemParams = Type.Object({
  project: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.Integer({ minimum: 1 }),
});
export type SharedItemParams = Static<typeof SharedItemParams>;

export const SharedItemVersionParams = Type.Object({
  project: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.Integer({ minimum: 1 }),
  version: Type.Integer({ minimum: 1 }),
});
export type SharedItemVersionParams = Static<typeof SharedItemVersionParams>;

/** A live test case that uses a shared item (its latest version does): what editing the item changes. */
export const SharedItemUser = Type.Object({
  id: Type.String(),
  seq: Type.Integer(),
  title: Type.String(),
  folderId: Type.Integer(),
});
export const SharedItemUserList = Type.Object({ tcases: Type.Array(SharedItemUser) });
export type SharedItemUserList = Static<typeof SharedItemUserList>;
