import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdString, MessageBody, ProjectParams } from '../../http/schemas.js';
import { checkConnection, checkTypedSettings } from './integration-check.js';
import {
  ConnectionCheck,
  CreateIntegrationBody,
  Integration,
  IntegrationList,
  IntegrationParams,
  LinkProjectBody,
  ProjectIntegration,
  ProjectIntegrationList,
  ProjectIntegrationParams,
  TestSettingsBody,
  UpdateIntegrationBody,
} from './integrations.schemas.js';
import * as service from './integrations.service.js';

export const integrationsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, ctx } = app;
  // D3: integrations are managed by admins; project members may see which ones their project uses.
  const admin = { access: { minRole: 'admin' as const } };

  app.get(
    '/integration',
    {
      config: admin,
      schema: {
        tags: ['integrations'],
        summary: 'List the issue-tracker integrations (admin; credentials are never returned)',
        response: { 200: IntegrationList, ...errorResponses },
      },
    },
    async (req) => ({ integrations: await service.listIntegrations(db, req.actor.tenantId) }),
  );

  app.post(
    '/integration',
    {
      config: admin,
      schema: {
        tags: ['integrations'],
        summary: 'Create an integration (admin)',
        body: CreateIntegrationBody,
        response: { 201: IdString, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createIntegration(db, req.actor, req.body, config.secretKey)),
  );

  app.get(
    '/integration/:integrationId',
    {
      config: admin,
      schema: {
        tags: ['integrations'],
        summary: 'Get an integration (admin)',
        params: IntegrationParams,
        response: { 200: Integration, ...errorResponses },
      },
    },
    async (req) => service.getIntegration(db, req.actor.tenantId, req.params.integrationId),
  );

  app.patch(
    '/integration/:integrationId',
    {
      config: admin,
      schema: {
        tags: ['integrations'],
        summary: 'Update an integration; only the given fields change (admin)',
        params: IntegrationParams,
        body: UpdateIntegrationBody,
        response: { 200: Integration, ...errorResponses },
      },
    },
    async (req) =>
      service.updateIntegration(db, req.actor, req.params.integrationId, req.body, config.secretKey),
  );

  app.delete(
    '/integration/:integrationId',
    {
      config: admin,
      schema: {
        tags: ['integrations'],
        summary: 'Delete an integration and its project links (admin)',
        params: IntegrationParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.deleteIntegration(db, req.actor, req.params.integrationId);
      return { message: 'Integration deleted' };
    },
  );

  app.post(
    '/integration/:integrationId/test',
    {
      config: admin,
      schema: {
        tags: ['integrations'],
        summary:
          'Test the connection: one authenticated request to the tracker with the stored settings and credential, the answer in words (admin; nothing is stored)',
        params: IntegrationParams,
        response: { 200: ConnectionCheck, ...errorResponses },
      },
    },
    async (req) =>
      checkConnection(db, req.actor.tenantId, req.params.integrationId, {
        guard: ctx.outboundGuard,
        secretKey: config.secretKey,
      }),
  );

  app.post(
    '/integration/test',
    {
      config: admin,
      schema: {
        tags: ['integrations'],
        summary:
          "Test settings typed in the form before saving: one authenticated request to the tracker, the answer in words; integrationId lends an edited integration's stored credential (admin; nothing is stored)",
        body: TestSettingsBody,
        response: { 200: ConnectionCheck, ...errorResponses },
      },
    },
    async (req) =>
      checkTypedSettings(db, req.actor.tenantId, req.body, {
        guard: ctx.outboundGuard,
        secretKey: config.secretKey,
      }),
  );

  app.get(
    '/project/:project/integration',
    {
      schema: {
        tags: ['integrations'],
        summary: 'List the integrations linked to a project',
        params: ProjectParams,
        response: { 200: ProjectIntegrationList, ...errorResponses },
      },
    },
    async (req) => ({
      integrations: await service.listProjectIntegrations(db, req.actor, req.params.project),
    }),
  );

  app.post(
    '/project/:project/integration',
    {
      config: admin,
      schema: {
        tags: ['integrations'],
        summary: 'Link a project to an integration; replaces its link of the same type (admin)',
        params: ProjectParams,
        body: LinkProjectBody,
        response: { 200: ProjectIntegration, ...errorResponses },
      },
    },
    async (req) => service.linkProject(db, req.actor, req.params.project, req.body),
  );

  app.delete(
    '/project/:project/integration/:integrationId',
    {
      config: admin,
      schema: {
        tags: ['integrations'],
        summary: 'Unlink a project from an integration (admin)',
        params: ProjectIntegrationParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.unlinkProject(db, req.actor, req.params.project, req.params.integrationId);
      return { message: 'Integration unlinked' };
    },
  );
};
