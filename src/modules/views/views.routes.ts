import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, ProjectParams } from '../../http/schemas.js';
import {
  CreateViewBody,
  SavedView,
  UpdateViewBody,
  ViewList,
  ViewListQuery,
  ViewParams,
} from './views.schemas.js';
import * as service from './views.service.js';

const tags = ['views'];

/** Saved views (docs/api-decisions.md#saved-views): a page's filters and sort under a name. */
export const viewsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.get(
    '/project/:project/view',
    {
      schema: {
        tags,
        summary: 'The caller’s saved views of the project and those shared with it',
        params: ProjectParams,
        querystring: ViewListQuery,
        response: { 200: ViewList, ...errorResponses },
      },
    },
    async (req) => service.listViews(db, req.actor, req.params.project, req.query.page),
  );

  app.post(
    '/project/:project/view',
    {
      // Viewers keep private views; sharing one needs test-runner (the service says so).
      config: { access: { minRole: 'viewer' } },
      schema: {
        tags,
        summary: 'Save a view: a name for a page’s filters and sort, private or shared with the project',
        params: ProjectParams,
        body: CreateViewBody,
        response: { 201: SavedView, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createView(db, req.actor, req.params.project, req.body)),
  );

  app.patch(
    '/project/:project/view/:id',
    {
      config: { access: { minRole: 'viewer' } },
      schema: {
        tags,
        summary:
          'Rename a saved view, change its filters or share it (its owner, or an admin for a shared one)',
        params: ViewParams,
        body: UpdateViewBody,
        response: { 200: SavedView, ...errorResponses },
      },
    },
    async (req) => service.updateView(db, req.actor, req.params.project, req.params.id, req.body),
  );

  app.delete(
    '/project/:project/view/:id',
    {
      config: { access: { minRole: 'viewer' } },
      schema: {
        tags,
        summary: 'Delete a saved view (its owner, or an admin for a shared one)',
        params: ViewParams,
        response: { 204: Type.Null({ description: 'deleted' }), ...errorResponses },
      },
    },
    async (req, reply) => {
      await service.deleteView(db, req.actor, req.params.project, req.params.id);
      return reply.code(204).send(null);
    },
  );
};
