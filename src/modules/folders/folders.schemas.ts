import { Type, type Static } from 'typebox';
import { SortOrder, Html } from '../../http/schemas.js';

/** docs/api-decisions.md#shapes: `{id, projectId, parentId (0 = root), pos, title, comment ("" when none)}`. */
export const Folder = Type.Object({
  id: Type.Integer(),
  projectId: Type.String(),
  parentId: Type.Integer({ description: '0 for a root folder' }),
  pos: Type.Integer({ description: 'position among siblings, 0-based' }),
  title: Type.String(),
  comment: Type.String({ description: 'HTML; "" when none' }),
});
export type Folder = Static<typeof Folder>;

/** docs/api-decisions.md#folder-case-counts: a listed folder, with its case counts when `withCounts=true`. */
export const ListedFolder = Type.Object({
  ...Folder.properties,
  tcaseCount: Type.Optional(
    Type.Integer({ description: 'with withCounts=true: live test cases directly in the folder' }),
  ),
  subtreeTcaseCount: Type.Optional(
    Type.Integer({
      description: 'with withCounts=true: live test cases in the folder and all its subfolders',
    }),
  ),
});
export type ListedFolder = Static<typeof ListedFolder>;

/** Snake_case column names and their camelCase spellings (docs/api-decisions.md#sorting). */
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
  withCounts: Type.Optional(
    Type.Boolean({
      description:
        'adds tcaseCount (live test cases directly in the folder) and subtreeTcaseCount (with its subfolders)',
    }),
  ),
});
export type FolderListQuery = Static<typeof FolderListQuery>;

export const FolderList = Type.Object({
  total: Type.Integer(),
  offset: Type.Optional(Type.Integer({ description: 'present when offset, limit or page was sent (D12)' })),
  limit: Type.Optional(Type.Integer({ description: 'present when offset, limit or page was sent (D12)' })),
  page: Type.Optional(
    Type.Integer({
      description:
        'the 1-based page offset and limit fall on; present when offset, limit or page was sent (D12)',
    }),
  ),
  data: Type.Array(ListedFolder),
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

export const FolderParams = Type.Object({
  project: Type.String({ minLength: 1, maxLength: 64 }),
  folderId: Type.Integer({ minimum: 1 }),
});

/** docs/api-decisions.md#folder-edits: rename, move, reorder and comment in one call; at least one field. */
export const UpdateFolderBody = Type.Object(
  {
    title: Type.Optional(Type.String({ description: '1-255 characters, unique among its siblings' })),
    parentId: Type.Optional(
      Type.Integer({ minimum: 0, description: 'new parent; 0 makes it a root folder' }),
    ),
    pos: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: '0-based index among its siblings after the edit; past the end puts it last',
      }),
    ),
    comment: Type.Optional(Type.String({ description: 'HTML, sanitised (D22)' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateFolderBody = Static<typeof UpdateFolderBody>;

export const DeleteFolderQuery = Type.Object({
  recursive: Type.Optional(
    Type.Boolean({
      description:
        'also delete its subfolders and test cases; without it a folder that holds either is a 409',
    }),
  ),
});
export type DeleteFolderQuery = Static<typeof DeleteFolderQuery>;

export const DeletedFolder = Type.Object({
  message: Type.String(),
  deletedFolderIds: Type.Array(Type.Integer(), { description: 'the folder, then its subfolders' }),
  deletedTcaseCount: Type.Integer({
    description: 'test cases deleted with them (soft: run results keep them)',
  }),
});
export type DeletedFolder = Static<typeof DeletedFolder>;
