import { Html } from '../../http/schemas.js';
import { Type, type Static } from 'typebox';

export const ProjectLink = Type.Object({ url: Type.String(), text: Type.String() });

export const Project = Type.Object({
  id: Type.String(),
  code: Type.String(),
  title: Type.String(),
  description: Type.String({ description: 'deprecated: use overviewDescription' }),
  overviewTitle: Type.String(),
  overviewDescription: Type.String(),
  links: Type.Array(ProjectLink),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  archivedAt: Type.Union([Type.String(), Type.Null()]),
});
export type Project = Static<typeof Project>;

export const ProjectList = Type.Object({ projects: Type.Array(Project) });

export const CreateProjectBody = Type.Object(
  {
    code: Type.String(),
    title: Type.String(),
    links: Type.Optional(
      Type.Array(Type.Object({ url: Type.String(), text: Type.String() }, { additionalProperties: false })),
    ),
    overviewTitle: Type.Optional(Type.String()),
    overviewDescription: Type.Optional(Html()),
    description: Type.Optional(Html({ description: 'deprecated alias of overviewDescription' })),
  },
  { additionalProperties: false },
);
export type CreateProjectBody = Static<typeof CreateProjectBody>;

/** docs/api-decisions.md#project-edits: only the given fields change; `links` replaces the list; the code never changes. */
export const UpdateProjectBody = Type.Object(
  {
    title: Type.Optional(Type.String({ description: '1-255 characters, unique in the tenant' })),
    overviewTitle: Type.Optional(Type.String({ description: 'at most 255 characters' })),
    overviewDescription: Type.Optional(Type.String({ description: 'HTML, sanitised (D22)' })),
    description: Type.Optional(Type.String({ description: 'deprecated alias of overviewDescription' })),
    links: Type.Optional(
      Type.Array(Type.Object({ url: Type.String(), text: Type.String() }, { additionalProperties: false }), {
        description: 'replaces the list; urls absolute http(s)',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateProjectBody = Static<typeof UpdateProjectBody>;

export const ProjectMember = Type.Object({
  userId: Type.Integer(),
  name: Type.String(),
  email: Type.String(),
  role: Type.String(),
  createdAt: Type.String({ description: 'when access was granted' }),
});
export type ProjectMember = Static<typeof ProjectMember>;

export const ProjectMemberList = Type.Object({ members: Type.Array(ProjectMember) });

export const AddMemberBody = Type.Object(
  { userId: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);
export type AddMemberBody = Static<typeof AddMemberBody>;

export const MemberParams = Type.Object({
  project: Type.String({ minLength: 1, maxLength: 64 }),
  userId: Type.Integer({ minimum: 1 }),
});

/** What deleting or archiving the project concerns (docs/api-decisions.md#what-a-project-holds). */
export const ProjectCounts = Type.Object({
  cases: Type.Integer({ description: 'live test cases (deleted ones not counted)' }),
  runs: Type.Integer({ description: 'every run, open or closed, plan runs included' }),
  openRuns: Type.Integer({ description: 'runs not closed' }),
  results: Type.Integer({ description: 'results recorded in the runs' }),
  files: Type.Integer({ description: 'files attached to its test cases (any version), each counted once' }),
  fileBytes: Type.Integer({ description: 'their size in bytes' }),
});
export type ProjectCounts = Static<typeof ProjectCounts>;
