import { Type, type Static } from 'typebox';
import { QueryPlan, RUN_TYPES } from '../runs.schemas.js';

export const PREVIEW_DEFAULT_LIMIT = 100;
export const PREVIEW_MAX_LIMIT = 5000;

export const RunPreviewBody = Type.Object(
  {
    type: Type.String({ enum: [...RUN_TYPES], description: 'the run type the plans are for (shape rules)' }),
    queryPlans: Type.Array(QueryPlan, {
      description: 'as in POST run: non-live exactly one plan; live one or more plans, filters only',
    }),
    offset: Type.Optional(Type.Integer({ minimum: 0, description: 'into the selected cases, by seq' })),
    limit: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: PREVIEW_MAX_LIMIT,
        description: `cases listed (default ${PREVIEW_DEFAULT_LIMIT}); 0 = only the total`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type RunPreviewBody = Static<typeof RunPreviewBody>;

export const RunPreviewResponse = Type.Object({
  total: Type.Integer({ description: 'how many test cases a run created from these plans would hold now' }),
  offset: Type.Integer(),
  limit: Type.Integer(),
  tcases: Type.Array(
    Type.Object({
      id: Type.String(),
      seq: Type.Integer(),
      title: Type.String(),
      priority: Type.String(),
      folderId: Type.Integer(),
      folder: Type.Object({ id: Type.Integer(), title: Type.String() }),
    }),
    { description: 'the selected cases in seq order, offset/limit applied' },
  ),
});
export type RunPreviewResponse = Static<typeof RunPreviewResponse>;
