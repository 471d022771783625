import { Type, type Static } from 'typebox';
import { ProjectParams } from '../../../http/schemas.js';
import { Status } from '../../statuses/statuses.schemas.js';
import {
  CoverageReport,
  DefectsReport,
  FailingReport,
  FlakyReport,
  FolderReport,
  MilestoneReport,
  PlanReport,
  RunReport,
  SlowestReport,
  TrendReport,
} from '../reports.schemas.js';

export const SHARE_KINDS = ['run', 'plan', 'milestone', 'dashboard'] as const;
export type ShareKind = (typeof SHARE_KINDS)[number];

const Kind = Type.Union(
  [Type.Literal('run'), Type.Literal('plan'), Type.Literal('milestone'), Type.Literal('dashboard')],
  { description: 'which report the link opens' },
);

/** The report's parameters: the one its kind needs (runId, planId or milestoneId), `since` for a run report. */
export const ShareParams = Type.Object(
  {
    runId: Type.Optional(Type.Integer({ minimum: 1 })),
    planId: Type.Optional(Type.Integer({ minimum: 1 })),
    milestoneId: Type.Optional(Type.Integer({ minimum: 1 })),
    since: Type.Optional(Type.Integer({ minimum: 1, description: 'run report: the run to compare with' })),
  },
  { additionalProperties: false },
);
export type ShareParams = Static<typeof ShareParams>;

export const CreateShareBody = Type.Object(
  {
    report: Kind,
    params: Type.Optional(ShareParams),
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'when the link stops working; at most 90 days ahead, 30 days by default',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateShareBody = Static<typeof CreateShareBody>;

export const CreatedShare = Type.Object({
  id: Type.Integer(),
  token: Type.String({ description: 'shown once; only its hash is kept' }),
  url: Type.String({
    description:
      "the read-only page of the report: <public URL>/shared/<token>; in multi-tenant mode on the tenant's own host",
  }),
});
export type CreatedShare = Static<typeof CreatedShare>;

export const ShareItem = Type.Object({
  id: Type.Integer(),
  report: Kind,
  params: ShareParams,
  createdBy: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()]),
  createdAt: Type.String(),
  expiresAt: Type.String(),
  revoked: Type.Boolean(),
  active: Type.Boolean({ description: 'whether the link opens its report now' }),
  inactiveReason: Type.Optional(
    Type.Union(
      [
        Type.Literal('revoked'),
        Type.Literal('expired'),
        Type.Literal('creatorDeactivated'),
        Type.Literal('creatorNoAccess'),
      ],
      {
        description:
          'why it does not (only when inactive): revoked, expired, or its creator is deactivated or no longer may ' +
          'read the project or make links (the link answers again once they may)',
      },
    ),
  ),
});
export type ShareItem = Static<typeof ShareItem>;
export type ShareClosed = NonNullable<ShareItem['inactiveReason']>;

export const ShareList = Type.Object({ shares: Type.Array(ShareItem) });
export type ShareList = Static<typeof ShareList>;

export const ShareIdParams = Type.Object({
  project: ProjectParams.properties.project,
  id: Type.Integer({ minimum: 1 }),
});
export const ShareTokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });

/** The dashboard's reports, each with its defaults (`last` 20). */
export const DashboardReport = Type.Object({
  trend: TrendReport,
  folders: FolderReport,
  flaky: FlakyReport,
  failing: FailingReport,
  slowest: SlowestReport,
  coverage: CoverageReport,
  defects: DefectsReport,
});
export type DashboardReport = Static<typeof DashboardReport>;

export const SharedReport = Type.Object({
  report: Kind,
  params: ShareParams,
  project: Type.Object({ code: Type.String(), title: Type.String() }),
  expiresAt: Type.String(),
  statuses: Type.Array(Status, {
    description: 'the tenant’s statuses: the page names and colours the counts as its members see them',
  }),
  data: Type.Union([RunReport, PlanReport, MilestoneReport, DashboardReport]),
});
export type SharedReport = Static<typeof SharedReport>;
