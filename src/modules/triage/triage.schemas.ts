import { Type, type Static } from 'typebox';
import { ProjectParams, TimestampString } from '../../http/schemas.js';
import { ResultLinkInput } from '../runs/runs.schemas.js';

/** A failure signature: 32 lowercase hex characters (src/lib/failure-signature.ts). */
const Signature = Type.String({
  pattern: '^[0-9a-f]{32}$',
  description: 'a failure signature (32 hex characters)',
});
const Project = ProjectParams.properties.project;
const RunId = Type.Integer({ minimum: 1 });

export const RunFailureParams = Type.Object({ project: Project, run: RunId });
export const RunGroupParams = Type.Object({ project: Project, run: RunId, signature: Signature });
export type RunGroupParams = Static<typeof RunGroupParams>;
export const GroupParams = Type.Object({ project: Project, signature: Signature });
export const ResultParams = Type.Object({ project: Project, result: Type.Integer({ minimum: 1 }) });

export const GroupPageQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  },
  { additionalProperties: false },
);
export type GroupPageQuery = Static<typeof GroupPageQuery>;

const UserRef = Type.Object({ id: Type.Integer(), name: Type.String() });

/** A signature marked known in the project: by whom, when, from which run. */
export const KnownMark = Type.Object({
  by: Type.Optional(UserRef),
  at: TimestampString,
  runId: Type.Optional(
    Type.Integer({ description: 'the run it was marked from (left out once that run is deleted)' }),
  ),
  note: Type.String(),
});
export type KnownMark = Static<typeof KnownMark>;

const GroupCase = Type.Object({
  tcaseId: Type.String(),
  seq: Type.Integer(),
  title: Type.String(),
  status: Type.String(),
  resultId: Type.Integer(),
});

export const RunFailureGroup = Type.Object({
  signature: Type.String(),
  label: Type.String({ description: "the normalised message's first line" }),
  count: Type.Integer({ description: 'cases of the run failing so now' }),
  cases: Type.Array(GroupCase),
  isNew: Type.Boolean({
    description: 'not among the failures of the comparable run (true when there is no comparable run)',
  }),
  known: Type.Union([KnownMark, Type.Null()]),
});
export type RunFailureGroup = Static<typeof RunFailureGroup>;

export const RunFailureGroups = Type.Object({
  runId: Type.Integer(),
  comparedWith: Type.Union([
    Type.Integer({ description: 'the comparable run (extensions §6)' }),
    Type.Null(),
  ]),
  groups: Type.Array(RunFailureGroup),
});
export type RunFailureGroups = Static<typeof RunFailureGroups>;

export const ProjectFailureGroup = Type.Object({
  signature: Type.String(),
  label: Type.String(),
  firstSeen: TimestampString,
  lastSeen: TimestampString,
  runs: Type.Integer({ description: 'runs affected' }),
  cases: Type.Integer({ description: 'cases affected' }),
  known: Type.Union([KnownMark, Type.Null()]),
});
export type ProjectFailureGroup = Static<typeof ProjectFailureGroup>;

export const ProjectFailureGroupPage = Type.Object({
  total: Type.Integer(),
  offset: Type.Integer(),
  limit: Type.Integer(),
  data: Type.Array(ProjectFailureGroup),
});
export type ProjectFailureGroupPage = Static<typeof ProjectFailureGroupPage>;

export const FailureGroupDetail = Type.Object({
  ...ProjectFailureGroup.properties,
  runList: Type.Array(
    Type.Object({
      id: Type.Integer(),
      title: Type.String(),
      createdAt: TimestampString,
      cases: Type.Integer(),
    }),
    { description: 'newest first, at most 200' },
  ),
  caseList: Type.Array(
    Type.Object({
      tcaseId: Type.String(),
      seq: Type.Integer(),
      title: Type.String(),
      runs: Type.Integer(),
      lastSeen: TimestampString,
    }),
    { description: 'the most recently failed first, at most 500' },
  ),
});
export type FailureGroupDetail = Static<typeof FailureGroupDetail>;

const Evidence = Type.Object({
  runId: Type.Integer(),
  runTitle: Type.String(),
  resultId: Type.Integer(),
  tcaseId: Type.String(),
  seq: Type.Integer(),
  linkedBy: Type.Optional(UserRef),
  linkedAt: TimestampString,
});

export const Suggestion = Type.Object({
  url: Type.String(),
  text: Type.String(),
  integrationId: Type.Optional(Type.String()),
  issueId: Type.Optional(Type.String({ description: "the link's meta.id, when it names an issue" })),
  runs: Type.Integer({ description: 'runs where a result with this signature was linked to it' }),
  evidence: Type.Array(Evidence, { description: 'the links, newest first, at most 10' }),
});
export type Suggestion = Static<typeof Suggestion>;

export const ResultSuggestions = Type.Object({
  resultId: Type.Integer(),
  signature: Type.Union([Type.String(), Type.Null()], {
    description: 'null: the result is not a signed failure',
  }),
  label: Type.Union([Type.String(), Type.Null()]),
  suggestions: Type.Array(Suggestion),
});
export type ResultSuggestions = Static<typeof ResultSuggestions>;

export const LinkGroupBody = ResultLinkInput;
export type LinkGroupBody = Static<typeof LinkGroupBody>;

export const LinkGroupAnswer = Type.Object({
  signature: Type.String(),
  linked: Type.Array(Type.Integer(), { description: 'the results linked now' }),
  skipped: Type.Array(Type.Integer(), { description: 'results that had a link to this URL already' }),
});

export const LinkResultAnswer = Type.Object({
  resultId: Type.Integer(),
  linked: Type.Boolean({ description: 'false when the result had a link to this URL already' }),
});

export const MarkKnownBody = Type.Object(
  { note: Type.Optional(Type.String({ maxLength: 1024, description: 'plain text' })) },
  { additionalProperties: false },
);
export type MarkKnownBody = Static<typeof MarkKnownBody>;

export const MarkKnownAnswer = Type.Object({
  signature: Type.String(),
  label: Type.String(),
  known: KnownMark,
});
export type MarkKnownAnswer = Static<typeof MarkKnownAnswer>;
