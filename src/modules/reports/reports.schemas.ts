import { Type, type Static, type TInteger, type TSchema } from 'typebox';
import { ProjectParams } from '../../http/schemas.js';
import { STATUS_IDS, type StatusId } from '../../lib/statuses.js';

/** Cases (or results) per status id, with `all` (extensions.md §6). */
export const ReportCounts = Type.Object({
  all: Type.Integer(),
  ...(Object.fromEntries(STATUS_IDS.map((s) => [s, Type.Integer()])) as Record<StatusId, TInteger>),
});
export type ReportCounts = Static<typeof ReportCounts>;

export const PassRate = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
  description: 'passed ÷ (all − open − skipped); null when nothing counts',
});

const Format = Type.Optional(
  Type.Union([Type.Literal('json'), Type.Literal('csv')], {
    description: 'csv: the same items as text/csv (a header row, one row per item)',
  }),
);
const Last = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: 200,
    default: 20,
    description: 'the last N runs (or days); 20 by default',
  }),
);
const Limit = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: 5000,
    default: 100,
    description: 'at most this many items; 100 by default',
  }),
);

export const FormatQuery = Type.Object({ format: Format }, { additionalProperties: false });
export type FormatQuery = Static<typeof FormatQuery>;

export const TrendQuery = Type.Object(
  {
    by: Type.Optional(Type.Union([Type.Literal('run'), Type.Literal('day')], { default: 'run' })),
    last: Last,
    milestoneId: Type.Optional(Type.Integer({ minimum: 1 })),
    configurationId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    format: Format,
  },
  { additionalProperties: false },
);
export type TrendQuery = Static<typeof TrendQuery>;

export const LastQuery = Type.Object(
  { last: Last, limit: Limit, format: Format },
  { additionalProperties: false },
);
export type LastQuery = Static<typeof LastQuery>;

export const RunReportQuery = Type.Object(
  {
    since: Type.Optional(
      Type.Integer({ minimum: 1, description: 'the run to compare with (default: see §6)' }),
    ),
    format: Format,
  },
  { additionalProperties: false },
);
export type RunReportQuery = Static<typeof RunReportQuery>;

export const RunReportParams = Type.Object({
  project: ProjectParams.properties.project,
  run: Type.Integer({ minimum: 1 }),
});
export const MilestoneReportParams = Type.Object({
  project: ProjectParams.properties.project,
  milestone: Type.Integer({ minimum: 1 }),
});
export const PlanReportParams = Type.Object({
  project: ProjectParams.properties.project,
  plan: Type.Integer({ minimum: 1 }),
});

export const TrendPoint = Type.Object({
  key: Type.String({ description: 'the run id (by run) or the UTC date YYYY-MM-DD (by day)' }),
  label: Type.String(),
  at: Type.String(),
  counts: ReportCounts,
  passRate: PassRate,
});
export const TrendReport = Type.Object({ points: Type.Array(TrendPoint) });
export type TrendReport = Static<typeof TrendReport>;

const Author = Type.Object({ id: Type.Integer(), name: Type.String() });
const Link = Type.Object({ text: Type.String(), url: Type.String() });

/** A step outcome of a result (extensions.md §8), as the run report shows it. */
export const ReportStep = Type.Object({
  stepId: Type.Integer(),
  position: Type.Integer({ description: '1-based' }),
  status: Type.String(),
  comment: Type.String(),
});
export type ReportStep = Static<typeof ReportStep>;

export const RunFailure = Type.Object({
  tcaseId: Type.String(),
  seq: Type.Integer(),
  title: Type.String(),
  folderPath: Type.Array(Type.String()),
  status: Type.String(),
  comment: Type.String({ description: 'the latest result’s comment (HTML)' }),
  links: Type.Array(Link),
  author: Type.Optional(Author),
  at: Type.String({ description: 'when the latest result was recorded' }),
  steps: Type.Optional(
    Type.Array(ReportStep, { description: "the latest result's step outcomes, when recorded" }),
  ),
});
export type RunFailure = Static<typeof RunFailure>;

export const RunReport = Type.Object({
  run: Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    closed: Type.Boolean(),
    createdAt: Type.String(),
    closedAt: Type.Union([Type.String(), Type.Null()]),
  }),
  counts: ReportCounts,
  passRate: PassRate,
  timeSpent: Type.Integer({
    description: "milliseconds: the sum of the run's results' timeTaken (0 when none)",
  }),
  folders: Type.Array(Type.Object({ path: Type.Array(Type.String()), counts: ReportCounts })),
  failures: Type.Array(RunFailure),
  since: Type.Union([
    Type.Object({
      runId: Type.Integer(),
      title: Type.String({
        description: 'the compared run’s title, so a reader knows what it is compared with',
      }),
      newFailures: Type.Array(Type.Integer(), { description: 'seqs failing here and not in that run' }),
      fixed: Type.Array(Type.Integer(), { description: 'seqs failing in that run and passed here' }),
      fixedCases: Type.Array(Type.Object({ seq: Type.Integer(), title: Type.String() }), {
        description: 'the fixed cases with their titles (the failures list has those of new failures)',
      }),
    }),
    Type.Null(),
  ]),
});
export type RunReport = Static<typeof RunReport>;

const TcaseRef = { tcaseId: Type.String(), seq: Type.Integer(), title: Type.String() };

/** The flaky score, 0–1 (docs/api-decisions.md#flaky-score). */
const FlakyScore = Type.Number({
  minimum: 0,
  maximum: 1,
  description: 'recency-weighted share of passed/failing changes that flipped (docs: flaky score)',
});

export const FlakyReport = Type.Object({
  tcases: Type.Array(
    Type.Object({
      ...TcaseRef,
      flips: Type.Integer(),
      runs: Type.Integer(),
      lastStatus: Type.String(),
      /** The highest score among the case's configurations. */
      score: FlakyScore,
      configurations: Type.Array(
        Type.Object({
          configurationId: Type.Union([Type.String(), Type.Null()]),
          configurationTitle: Type.Union([Type.String(), Type.Null()]),
          flips: Type.Integer(),
          runs: Type.Integer(),
          score: FlakyScore,
          /** The runs that show it, oldest first. */
          history: Type.Array(
            Type.Object({
              runId: Type.Integer(),
              title: Type.String(),
              status: Type.String(),
              createdAt: Type.String(),
            }),
          ),
        }),
      ),
    }),
  ),
});
export type FlakyReport = Static<typeof FlakyReport>;

export const RunFlakyQuery = Type.Object(
  {
    last: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 200,
        default: 20,
        description: "the last N runs of the run's configuration, up to the run; 20 by default",
      }),
    ),
  },
  { additionalProperties: false },
);
export type RunFlakyQuery = Static<typeof RunFlakyQuery>;

export const RunFlakyScores = Type.Object({
  runId: Type.Integer(),
  configurationId: Type.Union([Type.String(), Type.Null()]),
  last: Type.Integer(),
  /** The run's cases with a flip in that window, most flaky first; the others score 0. */
  tcases: Type.Array(
    Type.Object({ tcaseId: Type.String(), score: FlakyScore, flips: Type.Integer(), runs: Type.Integer() }),
  ),
});
export type RunFlakyScores = Static<typeof RunFlakyScores>;

export const FailingReport = Type.Object({
  tcases: Type.Array(
    Type.Object({ ...TcaseRef, failures: Type.Integer(), runs: Type.Integer(), lastFailedAt: Type.String() }),
  ),
});
export type FailingReport = Static<typeof FailingReport>;

export const SlowestReport = Type.Object({
  tcases: Type.Array(
    Type.Object({ ...TcaseRef, medianMs: Type.Number(), maxMs: Type.Integer(), samples: Type.Integer() }),
  ),
});
export type SlowestReport = Static<typeof SlowestReport>;

export const CoverageReport = Type.Object({
  requirements: Type.Array(
    Type.Object({
      id: Type.String(),
      text: Type.String(),
      url: Type.String(),
      tcases: Type.Array(Type.Object({ ...TcaseRef, lastStatus: Type.String() })),
      counts: ReportCounts,
    }),
  ),
  uncovered: Type.Integer({ description: 'test cases of the project that cover no requirement' }),
});
export type CoverageReport = Static<typeof CoverageReport>;

export const DefectsReport = Type.Object({
  defects: Type.Array(
    Type.Object({
      url: Type.String(),
      text: Type.String(),
      tcases: Type.Array(Type.Integer()),
      runs: Type.Array(Type.Integer()),
      firstAt: Type.String(),
      lastAt: Type.String(),
    }),
  ),
});
export type DefectsReport = Static<typeof DefectsReport>;

export const FolderReport = Type.Object({
  folders: Type.Array(
    Type.Object({
      path: Type.Array(Type.String(), { description: 'the folder’s titles, root first' }),
      failures: Type.Integer({ description: 'run cases whose latest status is failed or blocked' }),
      results: Type.Integer({ description: 'run cases with a result (all − open)' }),
      counts: ReportCounts,
    }),
  ),
});
export type FolderReport = Static<typeof FolderReport>;

const ReportRun = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  closed: Type.Boolean(),
  counts: ReportCounts,
  passRate: PassRate,
});

export const MilestoneReport = Type.Object({
  milestone: Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    archived: Type.Boolean(),
    createdAt: Type.String(),
  }),
  counts: ReportCounts,
  passRate: PassRate,
  runs: Type.Array(ReportRun),
  points: Type.Array(Type.Object({ date: Type.String(), counts: ReportCounts })),
});
export type MilestoneReport = Static<typeof MilestoneReport>;

export const PlanReport = Type.Object({
  plan: Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    milestoneId: Type.Optional(Type.Integer()),
    createdAt: Type.String(),
  }),
  counts: ReportCounts,
  passRate: PassRate,
  runs: Type.Array(ReportRun),
});
export type PlanReport = Static<typeof PlanReport>;

/** A report's 200: JSON by default, text/csv with `?format=csv`; both in the OpenAPI document. */
export const jsonOrCsv = (schema: TSchema) => ({
  description: 'the report; text/csv with ?format=csv',
  content: {
    'application/json': { schema },
    'text/csv': { schema: Type.String({ description: 'a header row, then one row per item (UTF-8)' }) },
  },
});
