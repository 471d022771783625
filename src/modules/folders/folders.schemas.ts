import { Type, type Static } from 'typebox';
import { SortOrder, Html } from '../../http/schemas.js';

/** extensions.md §2: `{id, projectId, parentId (0 = root), pos, title, comment ("" when none)}`. */
export const Folder = Type.Object({
  id: Type.Integer(),
  projectId: Type.String(),
  parentId: Type.Integer({ description: '0 for a root folder' }),
  pos: Type.Integer({ description: 'position among siblings, 0-based' }),
  title: Type.String(),
  comment: Type.String({ description: 'HTML; "" when none' }),
});
export type Folder = Static<typeof Folder>;

/** Snake_case column names (public-api.md) and their camelCase spellings (extensions.md "Sorting"). */
export const FOLDER_SORT_FIELDS = {
  id: 'id',
  project_id: 'project_id',
  projectId: 'project_id',
  title: 'title',
  pos: 'pos',
  parent_id: 'parent_id',
  parentId: 'parent_id',
  created_at: 'created_at',
  createdAt: 'created_at',
  updated_at: 'updated_at',
  updatedAt: 'updated_at',
} as const;
export type FolderSortColumn = (typeof FOLDER_SORT_FIELDS)[keyof typeof FOLDER_SORT_FIELDS];

export const FolderListQuery = Type.Object({
  offset: Type.Optional(
    Type.Integer({ minimum: 0, description: 'rows to skip; without limit, up to 5000 rows follow' }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 5000, description: '0 returns only the total, with no rows' }),
  ),
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: 'deprecated: 1-based page; ignored when offset is set; limit defaults to 10',
    }),
  ),
  sortField: Type.Optional(
    Type.String({
      enum: Object.keys(FOLDER_SORT_FIELDS),
      description: 'id, project_id, title, pos, parent_id, created_at, updated_at (camelCase accepted)',
    }),
  ),
  sortOrder: Type.Optional(SortOrder),
  search: Type.Optional(Type.String({ description: 'case-insensitive substring of the title' })),
});
export type FolderListQuery = Static<typeof FolderListQuery>;

export const FolderList = Type.Object({
  total: Type.Integer(),
  offset: Type.Optional(Type.Integer()),
  limit: Type.Optional(Type.Integer()),
  page: Type.Optional(Type.Integer({ description: 'deprecated: echoed only when sent' })),
  data: Type.Array(Folder),
});
export type FolderList = Static<typeof FolderList>;

export const FolderPathInput = Type.Object(
  {
    path: Type.Array(Type.String(), { description: 'folder names, root to leaf; not empty' }),
    comment: Type.Optional(
      Type.Union([Html(), Type.Null()], {
        description: 'HTML for the leaf folder; null or absent keeps an existing comment',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FolderPathInput = Static<typeof FolderPathInput>;

export const BulkFoldersBody = Type.Object(
  { folders: Type.Array(FolderPathInput) },
  { additionalProperties: false },
);
export type BulkFoldersBody = Static<typeof BulkFoldersBody>;

export const BulkFoldersResponse = Type.Object({
  ids: Type.Array(Type.Array(Type.Integer()), {
    description: 'one array per input path: the folder ids along it, root to leaf',
  }),
});
