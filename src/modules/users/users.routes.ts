import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.js';
import { ROLES } from '../../auth/roles.js';
import { getUser, listUsers } from './users.service.js';

const Role = Type.String({ enum: [...ROLES] });

export const UserListItem = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  role: Role,
});

export const Me = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  // docs/api-decisions.md#response-shapes: user avatar is one of the explicitly nullable keys.
  avatar: Type.Union([Type.String(), Type.Null()]),
  role: Role,
});

export const usersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.get(
    '/users',
    {
      schema: {
        tags: ['users'],
        summary: 'List the users of the tenant',
        response: { 200: Type.Object({ users: Type.Array(UserListItem) }), ...errorResponses },
      },
    },
    // Deactivated users stay listed: their ids still appear as authors of test cases and results.
    async (req) => ({
      users: (await listUsers(db, req.actor.tenantId)).map(({ id, email, name, role }) => ({
        id,
        email,
        name,
        role,
      })),
    }),
  );

  app.get(
    '/users/me',
    {
      schema: {
        tags: ['users'],
        summary: 'The user the request is authenticated as',
        response: { 200: Type.Object({ user: Me }), ...errorResponses },
      },
    },
    async (req) => {
      const { id, email, name, avatar, role } = await getUser(db, req.actor.tenantId, req.actor.userId);
      return { user: { id, email, name, avatar, role } };
    },
  );
};
