import { Type, type Static } from 'typebox';
import { Html } from '../../http/schemas.js';

/** Precondition (docs/api-decisions.md#shapes) as a shared precondition: titled and versioned. */
export const SharedPrecondition = Type.Object({
  projectId: Type.String(),
  id: Type.Integer(),
  version: Type.Integer(),
  isLatest: Type.Boolean(),
  type: Type.Literal('shared'),
  title: Type.String(),
  text: Type.String({ description: 'HTML' }),
  createdAt: Type.String({ description: 'when the shared precondition was created' }),
  updatedAt: Type.String({ description: 'when this version was made' }),
  deletedAt: Type.Optional(Type.String({ description: 'present once it was deleted' })),
});
export type SharedPrecondition = Static<typeof SharedPrecondition>;

export const SharedPreconditionListItem = Type.Object({
  ...SharedPrecondition.properties,
  tcaseCount: Type.Optional(
    Type.Integer({ description: 'live test cases whose latest version uses it; with include=tcaseCount' }),
  ),
});
export type SharedPreconditionListItem = Static<typeof SharedPreconditionListItem>;

/** docs/api-decisions.md#endpoints-beyond-the-public-api: the list is a bare array. */
export const SharedPreconditionList = Type.Array(SharedPreconditionListItem);

// The list query and path parameters are those of every shared item (shared-items.schemas.ts).
export {
  SharedItemListQuery as SharedPreconditionListQuery,
  SharedItemParams as SharedPreconditionParams,
  SharedItemVersionParams as SharedPreconditionVersionParams,
} from '../shared-items/shared-items.schemas.js';

export const CreateSharedPreconditionBody = Type.Object(
  {
    title: Type.String({ description: '1-255 characters' }),
    text: Html(),
  },
  { additionalProperties: false },
);
export type CreateSharedPreconditionBody = Static<typeof CreateSharedPreconditionBody>;

export const UpdateSharedPreconditionBody = Type.Object(
  {
    title: Type.Optional(Type.String({ description: '1-255 characters' })),
    text: Type.Optional(Html()),
  },
  { additionalProperties: false },
);
export type UpdateSharedPreconditionBody = Static<typeof UpdateSharedPreconditionBody>;
