import { Html } from '../../http/schemas.js';
import { FileInfo } from '../files/files.schemas.js';
import { Type, type Static, type TInteger } from 'typebox';
import { STATUS_IDS, type StatusId } from '../../lib/statuses.js';
import {
  CustomFieldValue,
  Step,
  TcaseFile,
  TcaseLink,
  TcaseRequirement,
  TcaseTag,
} from '../test-cases/test-cases.schemas.js';
import { BackdatedAt, ResultStep, TrackerComment } from './results/results.schemas.js';

// The result bodies, for modules that record results as the routes do (the MCP tools).
export {
  BatchResultsBody,
  CreateResultBody,
  ResultIdResponse,
  ResultIdsResponse,
  ResultLinkInput,
} from './results/results.schemas.js';

export const RUN_TYPES = ['static', 'static_struct', 'live'] as const;
export type RunType = (typeof RUN_TYPES)[number];
export const PRIORITIES = ['high', 'medium', 'low'] as const;
export const RUN_INCLUDES = [
  'project',
  'plan',
  'milestone',
  'assignment',
  'configuration',
  'statusCounts',
] as const;
export type RunInclude = (typeof RUN_INCLUDES)[number];

export const RUN_TITLE_MAX = 255;
export const RUN_DESCRIPTION_MAX = 512;

export const RunParams = Type.Object({
  project: Type.String({ minLength: 1, maxLength: 64 }),
  run: Type.Integer({ minimum: 1 }),
});
export type RunParams = Static<typeof RunParams>;

export const RunTcaseParams = Type.Object({
  project: Type.String({ minLength: 1, maxLength: 64 }),
  run: Type.Integer({ minimum: 1 }),
  tcase: Type.String({
    minLength: 1,
    maxLength: 128,
    description: 'test case id, sequence number or legacy id',
  }),
});
export type RunTcaseParams = Static<typeof RunTcaseParams>;

/** A due date in a body (extensions.md §8): a calendar day; the service checks it is a real one. */
export const DueAt = (nullMeans: string) =>
  Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
    description: `a calendar date YYYY-MM-DD; ${nullMeans}`,
  });

/** docs/api-decisions.md#query-plans */
export const QueryPlan = Type.Object(
  {
    tcaseIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'direct selection; not allowed for live runs',
      }),
    ),
    folderIds: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1 }), { description: 'folders and all their subfolders' }),
    ),
    tagIds: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }))),
    priorities: Type.Optional(Type.Array(Type.String({ enum: [...PRIORITIES] }))),
  },
  { additionalProperties: false },
);
export type QueryPlan = Static<typeof QueryPlan>;

export const CreateRunBody = Type.Object(
  {
    title: Type.String({
      description: '1-255 characters; unique among the runs of the project outside plans (D10)',
    }),
    description: Type.Optional(Html({ description: 'HTML, max 512 characters, sanitised (D22)' })),
    type: Type.String({ enum: [...RUN_TYPES] }),
    milestoneId: Type.Optional(Type.Integer({ description: 'a milestone of the project, not archived' })),
    configurationId: Type.Optional(Type.String({ description: 'a configuration of the project' })),
    assignmentId: Type.Optional(
      Type.Integer({ description: 'an active user with a role above viewer who can open the project' }),
    ),
    queryPlans: Type.Array(QueryPlan, {
      description:
        'non-live: exactly one plan, with tcaseIds or filters; live: one or more plans, filters only',
    }),
    createdAt: Type.Optional(BackdatedAt),
    dueAt: Type.Optional(DueAt('null or absent: no due date')),
  },
  { additionalProperties: false },
);
export type CreateRunBody = Static<typeof CreateRunBody>;

export const CloneRunBody = Type.Object(
  {
    runId: Type.Integer({ description: 'a run of the project that is not in a test plan' }),
    title: Type.String({
      description: '1-255 characters; unique among the runs of the project outside plans',
    }),
    description: Type.Optional(
      Type.String({ description: 'HTML, max 512 characters; defaults to the source run’s' }),
    ),
    milestoneId: Type.Optional(Type.Integer({ description: 'defaults to the source run’s' })),
    assignmentId: Type.Optional(
      Type.Integer({
        description: 'defaults to the source run’s while the rule for assignees still accepts them',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CloneRunBody = Static<typeof CloneRunBody>;

export const RunTcaseIdsBody = Type.Object(
  { tcaseIds: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 10000 }) },
  { additionalProperties: false },
);
export type RunTcaseIdsBody = Static<typeof RunTcaseIdsBody>;

/** Which related objects a run carries, in the list and alone. */
const RunIncludeParam = Type.Optional(
  Type.Array(Type.String({ enum: [...RUN_INCLUDES] }), {
    description: 'only the listed related objects are returned, the others are null; all when omitted',
  }),
);

export const ListRunsQuery = Type.Object(
  {
    closed: Type.Optional(Type.Boolean()),
    milestoneIds: Type.Optional(Type.Array(Type.Integer())),
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    include: RunIncludeParam,
  },
  { additionalProperties: false },
);
export type ListRunsQuery = Static<typeof ListRunsQuery>;

/** One run's query: which related objects it carries, as in the list. */
export const GetRunQuery = Type.Object({ include: RunIncludeParam }, { additionalProperties: false });
export type GetRunQuery = Static<typeof GetRunQuery>;

/** `all` and one count per status id (lib/statuses.ts). */
export const StatusCounts = Type.Object({
  all: Type.Integer(),
  ...(Object.fromEntries(STATUS_IDS.map((s) => [s, Type.Integer()])) as Record<StatusId, TInteger>),
});
export type StatusCounts = Static<typeof StatusCounts>;

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** A run (docs/api-decisions.md#shapes). */
export const Run = Type.Object({
  id: Type.Integer(),
  type: Type.String({ enum: [...RUN_TYPES] }),
  title: Type.String(),
  description: Type.String(),
  projectId: Type.String(),
  project: nullable(Type.Object({ id: Type.String(), code: Type.String(), title: Type.String() })),
  planId: nullable(Type.Integer()),
  plan: nullable(Type.Object({ title: Type.String() })),
  milestoneId: nullable(Type.Integer()),
  milestone: nullable(Type.Object({ title: Type.String() })),
  assignmentId: nullable(Type.Integer()),
  assignment: nullable(
    Type.Object({
      id: Type.Integer(),
      email: Type.String(),
      name: Type.String(),
      avatar: nullable(Type.String()),
      role: Type.String(),
    }),
  ),
  configurationId: nullable(Type.String({ description: 'configuration ids are strings in this service' })),
  configuration: nullable(
    Type.Object({
      id: Type.String(),
      title: Type.String(),
      createdAt: Type.String(),
      updatedAt: Type.String(),
    }),
  ),
  statusCounts: nullable(StatusCounts),
  timeSpent: nullable(
    Type.Number({
      description:
        "milliseconds: the sum of every result's timeTaken in this run; null until a result has one",
    }),
  ),
  isAutomated: Type.Boolean(),
  createdAt: Type.String(),
  closed: Type.Boolean({ description: 'true once the run is closed (closedAt is set)' }),
  closedAt: nullable(Type.String()),
  closedByUserId: nullable(Type.Integer()),
  // docs/api-decisions.md#due-dates: left out when none, as every optional scalar (#response-shapes).
  dueAt: Type.Optional(Type.String({ description: 'the due date, YYYY-MM-DD; absent when none' })),
  overdue: Type.Optional(
    Type.Boolean({
      description:
        'with dueAt: the run is open and its due date is before today (UTC); computed, never stored',
    }),
  ),
});
export type Run = Static<typeof Run>;

export const RunList = Type.Object({ runs: Type.Array(Run) });

export const RunTcaseCountResponse = Type.Object({
  added: Type.Optional(Type.Integer({ description: 'test cases that were not in the run before' })),
  removed: Type.Optional(Type.Integer({ description: 'test cases that left the run' })),
});

export const RUN_TCASE_SORT_FIELDS = {
  title: 'title',
  created_at: 'created_at',
  createdAt: 'created_at',
} as const;

export const ListRunTcasesQuery = Type.Object(
  {
    search: Type.Optional(Type.String({ description: 'case-insensitive partial match on the title' })),
    tags: Type.Optional(Type.Array(Type.Integer())),
    tag: Type.Optional(Type.Array(Type.Integer(), { description: 'alias of tags' })),
    priorities: Type.Optional(Type.Array(Type.String({ enum: [...PRIORITIES] }))),
    priority: Type.Optional(
      Type.Array(Type.String({ enum: [...PRIORITIES] }), { description: 'alias of priorities' }),
    ),
    include: Type.Optional(Type.Array(Type.String({ enum: ['folder'] }))),
    sortField: Type.Optional(Type.String({ enum: Object.keys(RUN_TCASE_SORT_FIELDS) })),
    sortOrder: Type.Optional(Type.String({ enum: ['asc', 'desc'], description: 'needs sortField' })),
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    assignee: Type.Optional(
      Type.String({
        pattern: '^(me|none|[1-9][0-9]{0,15})$',
        description: "a user id, `me` (the caller's cases) or `none` (cases nobody is assigned)",
      }),
    ),
  },
  {
    additionalProperties: false,
    patternProperties: {
      '^cf_': Type.Array(Type.String(), { description: 'cf_<custom field system name>: filters by value' }),
    },
  },
);
export type ListRunTcasesQuery = Static<typeof ListRunTcasesQuery> &
  Record<`cf_${string}`, string[] | undefined>;

export const RunTcaseFolder = Type.Object({
  id: Type.Integer(),
  parentId: Type.Integer(),
  title: Type.String(),
  comment: Type.String(),
  pos: Type.Integer(),
});

/** Who a run test case is assigned to (docs/api-decisions.md#run-test-case-assignees); null when nobody. */
export const RunTcaseAssignee = Type.Union(
  [Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()],
  {
    description: 'the person the case is assigned to in this run, or null',
  },
);

/** A run test case, list item (docs/api-decisions.md#shapes). */
export const RunTcaseListItem = Type.Object({
  id: Type.String(),
  version: Type.Integer(),
  legacyId: Type.String(),
  type: Type.String(),
  folderId: Type.Integer(),
  pos: Type.Integer(),
  seq: Type.Integer(),
  title: Type.String(),
  priority: Type.String(),
  status: Type.String(),
  isAutomated: Type.Boolean(),
  isEmpty: Type.Boolean(),
  assignee: RunTcaseAssignee,
  templateTCaseId: Type.Optional(Type.String()),
  folder: Type.Optional(RunTcaseFolder),
});
export type RunTcaseListItem = Static<typeof RunTcaseListItem>;

export const RunTcaseList = Type.Object({ tcases: Type.Array(RunTcaseListItem) });

/** A result link (docs/api-decisions.md#shapes, D24). A plain link has neither `integrationId` nor `integration`. */
export const ResultLink = Type.Object({
  id: Type.Integer(),
  resultId: Type.Integer(),
  integrationId: Type.Optional(Type.String({ description: 'left out for a plain link (D24)' })),
  integration: Type.Optional(
    Type.Union(
      [
        Type.Object({
          id: Type.String(),
          name: Type.String(),
          type: Type.String({ description: 'tracker_a, tracker_b or custom' }),
          config: Type.Record(Type.String(), Type.Unknown()),
        }),
        Type.Null(),
      ],
      {
        description:
          'null only when the integration was unlinked from the project since; left out for a plain link (D24)',
      },
    ),
  ),
  url: Type.String(),
  text: Type.String(),
  meta: Type.Record(Type.String(), Type.Unknown()),
  comment: Type.Optional(TrackerComment),
});
export type ResultLink = Static<typeof ResultLink>;

/** A result (docs/api-decisions.md#shapes), as shown in a run test case's `results`. */
export const Result = Type.Object({
  id: Type.Integer(),
  tcaseId: Type.String(),
  tcaseVersion: Type.String({ description: 'typed as a string by the public API' }),
  authorId: Type.Integer(),
  author: Type.Union(
    [
      Type.Object({
        id: Type.Integer(),
        email: Type.String(),
        name: Type.String(),
        avatar: Type.Union([Type.String(), Type.Null()]),
        role: Type.String({ description: 'owner, admin, user, test-runner or viewer' }),
      }),
      Type.Null(),
    ],
    { description: 'null only when the user no longer exists' },
  ),
  status: Type.String(),
  comment: Type.String(),
  links: Type.Array(ResultLink),
  timeTaken: Type.Union([Type.Number(), Type.Null()]),
  apiKeyId: Type.Union([Type.String(), Type.Null()]),
  internal: Type.Boolean(),
  createdAt: Type.String({ description: 'may be backdated (extensions.md §7a)' }),
  steps: Type.Optional(
    Type.Array(ResultStep, { description: 'per-step outcomes, present when recorded (extensions.md §8)' }),
  ),
  files: Type.Optional(
    Type.Array(FileInfo, {
      description: 'attachments, present when the result names files (extensions.md §8)',
    }),
  ),
});
export type Result = Static<typeof Result>;

/** A run test case, detail (docs/api-decisions.md#shapes). */
export const RunTcaseDetail = Type.Object({
  id: Type.String(),
  version: Type.Integer(),
  legacyId: Type.String(),
  type: Type.String(),
  folderId: Type.Integer(),
  pos: Type.Integer({ description: '0-based position in its folder' }),
  seq: Type.Integer(),
  title: Type.String(),
  priority: Type.String(),
  status: Type.String(),
  isAutomated: Type.Boolean(),
  isEmpty: Type.Boolean(),
  templateTCaseId: Type.Union([Type.String(), Type.Null()]),
  assignee: RunTcaseAssignee,
  comment: Type.String({ description: 'HTML of the precondition' }),
  steps: Type.Array(Step),
  tags: Type.Array(TcaseTag),
  files: Type.Array(TcaseFile),
  requirements: Type.Array(TcaseRequirement),
  links: Type.Array(TcaseLink),
  customFields: Type.Record(Type.String(), CustomFieldValue),
  authorId: Type.Integer(),
  createdAt: Type.String(),
  isLatestVersion: Type.Boolean(),
  results: Type.Array(Result),
});
export type RunTcaseDetail = Static<typeof RunTcaseDetail>;
