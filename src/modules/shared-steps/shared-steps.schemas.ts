import { Type, type Static } from 'typebox';
import { Html } from '../../http/schemas.js';

/** A sub-step (docs/api-decisions.md#shapes): version and isLatest are the parent's. */
export const SharedSubStep = Type.Object({
  id: Type.Integer(),
  type: Type.Literal('shared_sub_step'),
  version: Type.Integer(),
  isLatest: Type.Boolean(),
  description: Type.String({ description: 'HTML' }),
  expected: Type.String({ description: 'HTML' }),
  deletedAt: Type.Optional(Type.String({ description: "the shared step's deletion time" })),
});
export type SharedSubStep = Static<typeof SharedSubStep>;

/** Step (docs/api-decisions.md#shapes) as a shared step: title and sub-steps, versioned. */
export const SharedStep = Type.Object({
  id: Type.Integer(),
  version: Type.Integer(),
  isLatest: Type.Boolean(),
  type: Type.Literal('shared'),
  title: Type.String(),
  subSteps: Type.Array(SharedSubStep),
  deletedAt: Type.Optional(Type.String({ description: 'present once the shared step was deleted' })),
});
export type SharedStep = Static<typeof SharedStep>;

export const SharedStepListItem = Type.Object({
  ...SharedStep.properties,
  tcaseCount: Type.Optional(
    Type.Integer({ description: 'live test cases whose latest version uses it; with include=tcaseCount' }),
  ),
});
export type SharedStepListItem = Static<typeof SharedStepListItem>;

export const SharedStepList = Type.Object({ sharedSteps: Type.Array(SharedStepListItem) });

// The list query and path parameters are those of every shared item (shared-items.schemas.ts).
export {
  SharedItemListQuery as SharedStepListQuery,
  SharedItemParams as SharedStepParams,
  SharedItemVersionParams as SharedStepVersionParams,
} from '../shared-items/shared-items.schemas.js';

export const SubStepInput = Type.Object(
  {
    description: Type.Optional(Html()),
    expected: Type.Optional(Html()),
  },
  { additionalProperties: false },
);
export type SubStepInput = Static<typeof SubStepInput>;

export const CreateSharedStepBody = Type.Object(
  {
    title: Type.String({ description: '1-255 characters' }),
    subSteps: Type.Array(SubStepInput, {
      description: '1-100 sub-steps, each with a description or an expected result',
    }),
  },
  { additionalProperties: false },
);
export type CreateSharedStepBody = Static<typeof CreateSharedStepBody>;

export const UpdateSharedStepBody = Type.Object(
  {
    title: Type.Optional(Type.String({ description: '1-255 characters' })),
    subSteps: Type.Optional(Type.Array(SubStepInput, { description: 'replaces every sub-step' })),
  },
  { additionalProperties: false },
);
export type UpdateSharedStepBody = Static<typeof UpdateSharedStepBody>;
