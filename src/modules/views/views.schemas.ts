import { Type, type Static } from 'typebox';
import { ProjectParams, TimestampString } from '../../http/schemas.js';

export const VIEW_PAGES = ['repository', 'runs'] as const;
export type ViewPage = (typeof VIEW_PAGES)[number];

const Page = Type.Union([Type.Literal('repository'), Type.Literal('runs')], {
  description: 'the web page whose address the filters are: the repository or the runs list',
});

const Scalar = Type.Union([Type.String({ maxLength: 500 }), Type.Integer()]);

/**
 * The page's address search parameters, as the page reads them: each key one the page knows (views.filters.ts),
 * each value a string, an integer or a list of them.
 */
export const ViewFilters = Type.Record(
  Type.String({ maxLength: 300 }),
  Type.Union([Scalar, Type.Array(Scalar, { maxItems: 50 })]),
  {
    maxProperties: 64,
    description:
      "the page's search parameters: repository `folder`, `q`, `tag`, `priority`, `type`, `sort`, `order`, " +
      '`cf_<systemName>`; runs `milestone`, `assignee`, `type`, `q`, `sort`',
  },
);
export type ViewFilters = Static<typeof ViewFilters>;

const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'unique per owner and page (any case)',
});

export const CreateViewBody = Type.Object(
  {
    name: Name,
    page: Page,
    filters: ViewFilters,
    shared: Type.Optional(
      Type.Boolean({
        description: 'seen by everyone who reads the project (test-runner or higher); false by default',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateViewBody = Static<typeof CreateViewBody>;

export const UpdateViewBody = Type.Object(
  {
    name: Type.Optional(Name),
    filters: Type.Optional(ViewFilters),
    shared: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateViewBody = Static<typeof UpdateViewBody>;

export const SavedView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  page: Page,
  filters: ViewFilters,
  shared: Type.Boolean(),
  owner: Type.Object({ id: Type.Integer(), name: Type.String() }),
  /** Whether the caller may rename, change or delete it: its owner, or an admin for a shared view. */
  editable: Type.Boolean({ description: 'whether the caller may change or delete it' }),
  createdAt: TimestampString,
  updatedAt: TimestampString,
});
export type SavedView = Static<typeof SavedView>;

export const ViewList = Type.Object({ views: Type.Array(SavedView) });
export type ViewList = Static<typeof ViewList>;

export const ViewListQuery = Type.Object({ page: Type.Optional(Page) });

export const ViewParams = Type.Object({
  project: ProjectParams.properties.project,
  id: Type.Integer({ minimum: 1 }),
});
