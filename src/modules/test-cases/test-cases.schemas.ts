import { Type, type Static } from 'typebox';
import { ProjectParams, SortOrder, Html } from '../../http/schemas.js';
import { Folder } from '../folders/folders.schemas.js';
import { Project } from '../projects/projects.schemas.js';

export const PRIORITIES = ['high', 'medium', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];
export const TCASE_TYPES = ['standalone', 'template', 'filled'] as const;
export type TcaseType = (typeof TCASE_TYPES)[number];

/** Snake_case sort columns (docs/api-decisions.md#sorting) and their camelCase spellings. */
export const TCASE_SORT_FIELDS = {
  id: 'id',
  seq: 'seq',
  folder_id: 'folder_id',
  folderId: 'folder_id',
  author_id: 'author_id',
  authorId: 'author_id',
  pos: 'pos',
  title: 'title',
  priority: 'priority',
  created_at: 'created_at',
  createdAt: 'created_at',
  updated_at: 'updated_at',
  updatedAt: 'updated_at',
  legacy_id: 'legacy_id',
  legacyId: 'legacy_id',
} as const;

export const TCASE_INCLUDES = [
  'precondition',
  'steps',
  'tags',
  'project',
  'folder',
  'path',
  'requirements',
  'customFields',
  'parameterValues',
] as const;
export type TcaseInclude = (typeof TCASE_INCLUDES)[number];

// ---- response shapes (docs/api-decisions.md#shapes) ----

export const SubStep = Type.Object({
  id: Type.Integer(),
  type: Type.Literal('shared_sub_step'),
  version: Type.Integer(),
  isLatest: Type.Boolean(),
  description: Type.String(),
  expected: Type.String(),
  deletedAt: Type.Optional(Type.String()),
});

export const Step = Type.Object({
  id: Type.Integer(),
  version: Type.Integer({ description: 'always 1 for standalone steps' }),
  isLatest: Type.Boolean(),
  type: Type.Enum(['standalone', 'shared', 'shared_sub_step']),
  title: Type.Optional(Type.String({ description: 'shared steps only' })),
  description: Type.Optional(Type.String({ description: 'HTML; standalone steps and sub-steps' })),
  expected: Type.Optional(Type.String({ description: 'HTML; standalone steps and sub-steps' })),
  subSteps: Type.Optional(Type.Array(SubStep)),
  deletedAt: Type.Optional(Type.String()),
});
export type Step = Static<typeof Step>;

export const Precondition = Type.Object({
  projectId: Type.String(),
  id: Type.Integer(),
  version: Type.Integer(),
  isLatest: Type.Boolean(),
  type: Type.Enum(['standalone', 'shared']),
  title: Type.Optional(Type.String({ description: 'shared preconditions only' })),
  text: Type.String({ description: 'HTML' }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  deletedAt: Type.Optional(Type.String()),
});
export type Precondition = Static<typeof Precondition>;

export const TcaseFile = Type.Object({
  id: Type.String(),
  fileName: Type.String(),
  mimeType: Type.String(),
  size: Type.Integer(),
  url: Type.String(),
});
export const TcaseLink = Type.Object({ text: Type.String(), url: Type.String() });
export const TcaseTag = Type.Object({ id: Type.Integer(), title: Type.String() });
export const TcaseRequirement = Type.Object({ id: Type.String(), text: Type.String(), url: Type.String() });
export const CustomFieldValue = Type.Object({ value: Type.String(), isDefault: Type.Boolean() });
export const ParameterValue = Type.Object({
  tcaseId: Type.String({ description: 'the filled test case' }),
  tcaseVersion: Type.Integer(),
  values: Type.Record(Type.String(), Type.String()),
});

export const TCase = Type.Object({
  id: Type.String(),
  legacyId: Type.String({ description: '"" when none' }),
  version: Type.Integer(),
  type: Type.Enum([...TCASE_TYPES]),
  title: Type.String(),
  seq: Type.Integer(),
  projectId: Type.String(),
  folderId: Type.Integer(),
  pos: Type.Integer({ description: '0-based position in its folder' }),
  priority: Type.Enum([...PRIORITIES]),
  comment: Type.String({ description: 'deprecated: HTML of the precondition text' }),
  files: Type.Array(TcaseFile),
  links: Type.Array(TcaseLink),
  authorId: Type.Integer(),
  isDraft: Type.Boolean(),
  isLatestVersion: Type.Boolean(),
  isEmpty: Type.Boolean({ description: 'no precondition text and no steps' }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  precondition: Type.Optional(Precondition),
  steps: Type.Optional(Type.Array(Step)),
  tags: Type.Optional(Type.Array(TcaseTag)),
  requirements: Type.Optional(Type.Array(TcaseRequirement)),
  customFields: Type.Optional(Type.Record(Type.String(), CustomFieldValue)),
  parameterValues: Type.Optional(Type.Array(ParameterValue, { description: 'templates only' })),
  filledTCaseTitleSuffixParams: Type.Optional(Type.Array(Type.String(), { description: 'templates only' })),
  numFilledTCases: Type.Optional(Type.Integer({ description: 'templates only' })),
  templateTCaseId: Type.Optional(Type.String({ description: 'filled test cases only' })),
  folder: Type.Optional(Folder),
  path: Type.Optional(Type.Array(Folder, { description: 'root → leaf' })),
  project: Type.Optional(Project),
  highlight: Type.Optional(
    Type.Object(
      {
        title: Type.Optional(Type.String()),
        text: Type.Optional(
          Type.String({ description: 'a snippet of precondition, steps and expected results' }),
        ),
      },
      {
        description:
          'list with `q` only: where the words matched, as escaped HTML whose only tags are <mark> and </mark>',
      },
    ),
  ),
});
export type TCase = Static<typeof TCase>;

export const TCaseList = Type.Object({
  total: Type.Integer(),
  offset: Type.Integer(),
  limit: Type.Integer(),
  page: Type.Integer({ description: 'floor(offset / limit) + 1; 1 when limit is 0' }),
  data: Type.Array(TCase),
});
export type TCaseList = Static<typeof TCaseList>;

// ---- requests ----

export const TcaseParams = Type.Object({
  project: ProjectParams.properties.project,
  id: Type.String({ minLength: 1, maxLength: 255, description: 'id, seq (maybe zero-padded) or legacy id' }),
});
export type TcaseParams = Static<typeof TcaseParams>;

export const TcaseVersionParams = Type.Object({
  project: ProjectParams.properties.project,
  id: TcaseParams.properties.id,
  version: Type.Integer({ minimum: 1 }),
});
export type TcaseVersionParams = Static<typeof TcaseVersionParams>;

/** The versioned fields of a case (D15), as a version history names what a version changed. */
export const VERSION_FIELDS = [
  'title',
  'priority',
  'precondition',
  'steps',
  'tags',
  'requirements',
  'links',
  'customFields',
  'files',
  'parameterValues',
] as const;
export type VersionField = (typeof VERSION_FIELDS)[number];

/** One entry of a case's version history (docs/api-decisions.md#test-case-version-history). */
export const TcaseVersionEntry = Type.Object({
  version: Type.Integer({ minimum: 1 }),
  title: Type.String({ description: 'the title the case had at this version' }),
  authorId: Type.Integer({ description: 'the user who made this version' }),
  authorName: Type.Union([Type.String(), Type.Null()], {
    description: "the author's name now; null when the user is gone",
  }),
  createdAt: Type.String({ description: 'when this version was made (ISO 8601 UTC)' }),
  changed: Type.Array(Type.Enum([...VERSION_FIELDS]), {
    description:
      'the fields this version changed from the one before, in this order: ' +
      VERSION_FIELDS.join(', ') +
      '; empty for version 1 (the case was created)',
  }),
});
export const TcaseVersionList = Type.Object({
  versions: Type.Array(TcaseVersionEntry, { description: 'every version, newest first' }),
});
export type TcaseVersionList = Static<typeof TcaseVersionList>;

const Pagination = {
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  limit: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 5000, description: '0 returns only the total; default 5000' }),
  ),
  page: Type.Optional(Type.Integer({ minimum: 1, description: '1-based; ignored when offset is set' })),
};

export const TcaseListQuery = Type.Object(
  {
    ...Pagination,
    folders: Type.Optional(
      Type.Array(Type.Integer(), {
        description: 'cases directly in these folders (with recursive, in their subtrees)',
      }),
    ),
    recursive: Type.Optional(
      Type.Boolean({
        description: 'with folders: the cases of their subfolders too, as GET …/tcase/count takes it',
      }),
    ),
    tags: Type.Optional(Type.Array(Type.Integer(), { description: 'tag ids' })),
    priorities: Type.Optional(Type.Array(Type.Enum([...PRIORITIES]))),
    search: Type.Optional(Type.String({ description: 'case-insensitive substring of the title' })),
    q: Type.Optional(
      Type.String({
        maxLength: 500,
        description:
          'full text: an identifier (SHOP-5, shop-005, 5) or words of the title, precondition, steps and expected ' +
          'results (all required, the last also as a prefix); ranked best first unless sortField is given; ' +
          'adds `highlight` to each case',
      }),
    ),
    types: Type.Optional(Type.Array(Type.Enum([...TCASE_TYPES]))),
    draft: Type.Optional(Type.Boolean()),
    templateTCaseIds: Type.Optional(Type.Array(Type.String())),
    requirementIds: Type.Optional(Type.Array(Type.String())),
    sortField: Type.Optional(
      Type.String({ description: `one of ${Object.keys(TCASE_SORT_FIELDS).join(', ')}` }),
    ),
    sortOrder: Type.Optional(SortOrder),
    include: Type.Optional(Type.Array(Type.String(), { description: `any of ${TCASE_INCLUDES.join(', ')}` })),
  },
  {
    patternProperties: {
      '^cf_': Type.Array(Type.String(), { description: 'cf_<systemName>: custom field values' }),
    },
  },
);
export type TcaseListQuery = Static<typeof TcaseListQuery> & Record<`cf_${string}`, string[] | undefined>;

export const TcaseCountQuery = Type.Object({
  folders: Type.Optional(Type.Array(Type.Integer())),
  recursive: Type.Optional(Type.Boolean({ description: 'count cases in subfolders too' })),
  tags: Type.Optional(Type.Array(Type.Integer())),
  priorities: Type.Optional(Type.Array(Type.Enum([...PRIORITIES]))),
  draft: Type.Optional(Type.Boolean()),
});
export type TcaseCountQuery = Static<typeof TcaseCountQuery>;

export const CountResponse = Type.Object({ count: Type.Integer() });

const TextUrl = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 255 }),
    url: Type.String({ minLength: 1, maxLength: 255, description: 'absolute http(s) URL' }),
  },
  { additionalProperties: false },
);

export const StepInput = Type.Object(
  {
    sharedStepId: Type.Optional(Type.Integer({ description: 'a shared step; then no description/expected' })),
    description: Type.Optional(Html({ description: 'HTML' })),
    expected: Type.Optional(Html({ description: 'HTML' })),
  },
  { additionalProperties: false },
);
export type StepInput = Static<typeof StepInput>;

export const PreconditionInput = Type.Object(
  {
    text: Type.Optional(Html({ description: 'HTML of a standalone precondition' })),
    sharedPreconditionId: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false, description: '{text} or {sharedPreconditionId}' },
);
export type PreconditionInput = Static<typeof PreconditionInput>;

export const CustomFieldInput = Type.Object(
  {
    isDefault: Type.Optional(Type.Boolean()),
    value: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: '"" or null clears it' })),
  },
  { additionalProperties: false },
);

const Title = Type.String({ minLength: 1, maxLength: 511 });
const Values = Type.Record(Type.String(), Type.String());

const EditableFields = {
  title: Title,
  priority: Type.Enum([...PRIORITIES]),
  comment: Type.Optional(Html({ description: 'deprecated: the standalone precondition text' })),
  precondition: Type.Optional(PreconditionInput),
  steps: Type.Optional(Type.Array(StepInput)),
  tags: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { description: 'tag titles' }),
  ),
  requirements: Type.Optional(
    Type.Array(
      Type.Object(
        {
          text: Type.String({ minLength: 1, maxLength: 255 }),
          url: Type.String({ maxLength: 255, description: 'absolute http(s) URL, or "" for none' }),
        },
        { additionalProperties: false },
      ),
      { description: 'created in the project or linked when the same text and url exist' },
    ),
  ),
  links: Type.Optional(Type.Array(TextUrl)),
  files: Type.Optional(Type.Array(Type.String(), { description: 'ids of uploaded files' })),
  customFields: Type.Optional(Type.Record(Type.String(), CustomFieldInput)),
  isDraft: Type.Optional(Type.Boolean()),
  pos: Type.Optional(Type.Integer({ minimum: 0 })),
  filledTCaseTitleSuffixParams: Type.Optional(Type.Array(Type.String(), { description: 'templates only' })),
};

export const CreateTcaseBody = Type.Object(
  {
    ...EditableFields,
    type: Type.Enum(['standalone', 'template']),
    folderId: Type.Integer(),
    parameterValues: Type.Optional(
      Type.Array(Type.Object({ values: Values }, { additionalProperties: false }), {
        description: 'templates only: each makes one filled test case',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateTcaseBody = Static<typeof CreateTcaseBody>;

export const UpdateTcaseBody = Type.Object(
  {
    ...EditableFields,
    title: Type.Optional(Title),
    priority: Type.Optional(Type.Enum([...PRIORITIES])),
    folderId: Type.Optional(Type.Integer({ description: 'moves the case (not versioned)' })),
    parameterValues: Type.Optional(
      Type.Array(
        Type.Object(
          { tcaseId: Type.Optional(Type.String()), values: Values },
          { additionalProperties: false },
        ),
        { description: 'templates only: replaces the set of filled test cases' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type UpdateTcaseBody = Static<typeof UpdateTcaseBody>;

export const CreatedTcase = Type.Object({ id: Type.String(), seq: Type.Integer() });

export const SeqLookupBody = Type.Object(
  {
    seqIds: Type.Array(Type.String(), { description: 'markers like PRJ-007' }),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 5000 })),
    page: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);
export type SeqLookupBody = Static<typeof SeqLookupBody>;

export const BulkCreateBody = Type.Object(
  {
    folderPath: Type.Array(Type.String()),
    tcases: Type.Array(
      Type.Object(
        {
          title: Title,
          tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }))),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type BulkCreateBody = Static<typeof BulkCreateBody>;

export const BulkCreateResponse = Type.Object({ tcases: Type.Array(CreatedTcase) });

/** docs/api-decisions.md#bulk-test-case-operations: at most this many test cases a request. */
export const BULK_TCASES_MAX = 1000;

const BulkIds = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
  minItems: 1,
  maxItems: BULK_TCASES_MAX,
  description: `test case ids, 1-${BULK_TCASES_MAX}; a repeated id counts once`,
});

export const BulkMoveBody = Type.Object(
  { tcaseIds: BulkIds, folderId: Type.Integer({ minimum: 1, description: 'the folder they move to' }) },
  { additionalProperties: false },
);
export type BulkMoveBody = Static<typeof BulkMoveBody>;

export const BulkTagsBody = Type.Object(
  {
    tcaseIds: BulkIds,
    addTags: Type.Optional(
      Type.Array(Type.String(), { maxItems: 100, description: 'tag titles; created on demand' }),
    ),
    removeTags: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: 100,
        description: 'tag titles; one a case lacks changes nothing',
      }),
    ),
  },
  { additionalProperties: false },
);
export type BulkTagsBody = Static<typeof BulkTagsBody>;

export const BulkDeleteBody = Type.Object({ tcaseIds: BulkIds }, { additionalProperties: false });
export type BulkDeleteBody = Static<typeof BulkDeleteBody>;

export const BulkResult = Type.Object({
  message: Type.String(),
  changed: Type.Integer({
    description: 'test cases changed, filled cases that followed their template included',
  }),
});
export type BulkResult = Static<typeof BulkResult>;
