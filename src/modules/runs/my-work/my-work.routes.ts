import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../../http/schemas.js';
import { MyWorkPage, MyWorkQuery } from './my-work.schemas.js';
import { listMyWork } from './my-work.service.js';

/** "My work" (docs/api-decisions.md#my-work): the caller's assigned cases; people who record results only. */
export const myWorkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.get(
    '/users/me/work',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['runs'],
        summary: "The caller's open assigned cases in open runs, by run and due date (paged)",
        querystring: MyWorkQuery,
        response: { 200: MyWorkPage, ...errorResponses },
      },
    },
    async (req) => listMyWork(db, req.actor, req.query),
  );
};
