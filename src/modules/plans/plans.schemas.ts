import { Html } from '../../http/schemas.js';
import { Type, type Static } from 'typebox';
import { Run } from '../runs/runs.schemas.js';

export const PLAN_TITLE_MAX = 255;

export const PlanParams = Type.Object({
  project: Type.String({ minLength: 1, maxLength: 64 }),
  plan: Type.Integer({ minimum: 1 }),
});
export type PlanParams = Static<typeof PlanParams>;

export const PlanRunInput = Type.Object(
  {
    title: Type.String({ description: '1-255 characters; unique within the plan' }),
    description: Type.Optional(Html({ description: 'HTML, max 512 characters, sanitised (D22)' })),
    type: Type.Optional(
      Type.String({
        enum: ['static', 'static_struct', 'live'],
        description: 'static (default) or static_struct; live is a 400 (D20)',
      }),
    ),
    assignmentId: Type.Optional(
      Type.Integer({ description: 'an active user with a role above viewer who can open the project' }),
    ),
    configurationId: Type.Optional(Type.String({ description: 'a configuration of the project' })),
    queryPlans: Type.Array(
      Type.Object(
        {
          tcaseIds: Type.Array(Type.String({ minLength: 1 }), {
            description: 'standalone or filled test cases of the project',
          }),
        },
        { additionalProperties: false },
      ),
      { description: 'exactly one item selecting test cases by tcaseIds' },
    ),
  },
  { additionalProperties: false },
);
export type PlanRunInput = Static<typeof PlanRunInput>;

export const CreatePlanBody = Type.Object(
  {
    title: Type.String({
      description: '1-255 characters; unique within its milestone, or among plans without one',
    }),
    description: Type.Optional(Html({ description: 'HTML, sanitised (D22)' })),
    milestoneId: Type.Optional(Type.Integer({ description: 'a milestone of the project, not archived' })),
    runs: Type.Array(PlanRunInput, { description: 'at least one' }),
  },
  { additionalProperties: false },
);
export type CreatePlanBody = Static<typeof CreatePlanBody>;

export const UpdatePlanBody = Type.Object(
  {
    title: Type.Optional(
      Type.String({
        description: '1-255 characters; unique within its milestone, or among plans without one',
      }),
    ),
    description: Type.Optional(Html({ description: 'HTML, sanitised (D22)' })),
    milestoneId: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], {
        description:
          "a milestone of the project, not archived; null: no milestone. The plan's runs, open or closed, follow it",
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdatePlanBody = Static<typeof UpdatePlanBody>;

export const AddPlanRunsBody = Type.Object(
  { runs: Type.Array(PlanRunInput, { description: 'at least one; titles unique within the plan' }) },
  { additionalProperties: false },
);
export type AddPlanRunsBody = Static<typeof AddPlanRunsBody>;

export const AddedPlanRuns = Type.Object({
  runIds: Type.Array(Type.Integer(), { description: 'the new runs, in request order' }),
});

export const ClosedPlan = Type.Object({
  message: Type.String(),
  closedRunIds: Type.Array(Type.Integer(), {
    description: 'the runs this closing closed (those still open)',
  }),
});

export const Plan = Type.Object({
  id: Type.Integer(),
  projectId: Type.String(),
  title: Type.String(),
  description: Type.String(),
  milestoneId: Type.Optional(Type.Integer({ description: 'absent when the plan has no milestone' })),
  milestone: Type.Optional(Type.Object({ id: Type.Integer(), title: Type.String() })),
  runIds: Type.Array(Type.Integer({ description: 'the runs of the plan, oldest first' })),
  closed: Type.Boolean({ description: 'a closed plan takes no changes and no runs' }),
  closedAt: Type.Optional(Type.String({ description: 'present only when closed' })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type Plan = Static<typeof Plan>;

export const PlanList = Type.Object({ plans: Type.Array(Plan) });

export const PlanWithRuns = Type.Object({ ...Plan.properties, runs: Type.Array(Run) });
export type PlanWithRuns = Static<typeof PlanWithRuns>;
