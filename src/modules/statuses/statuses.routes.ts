import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, MessageBody } from '../../http/schemas.js';
import { StatusList, StatusUsage, UpdateStatusesBody } from './statuses.schemas.js';
import * as service from './statuses.service.js';

export const statusesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.get(
    '/settings/preferences/status',
    {
      schema: {
        tags: ['settings'],
        summary: 'List the nine result statuses with their names, colours and whether they are active',
        response: { 200: StatusList, ...errorResponses },
      },
    },
    async (req) => ({ statuses: await service.listStatuses(db, req.actor.tenantId) }),
  );

  app.get(
    '/settings/preferences/status/usage',
    {
      config: { access: { minRole: 'admin' } },
      schema: {
        tags: ['settings'],
        summary:
          'Count the results recorded with each custom status: what switching one off leaves (they keep it) (admin)',
        response: { 200: StatusUsage, ...errorResponses },
      },
    },
    async (req) => service.customStatusUsage(db, req.actor.tenantId),
  );

  app.post(
    '/settings/preferences/status',
    {
      config: { access: { minRole: 'admin' } },
      schema: {
        tags: ['settings'],
        summary: 'Name, colour and activate the custom statuses custom1-custom4 (admin)',
        body: UpdateStatusesBody,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => service.updateStatuses(db, req.actor, req.body),
  );
};
