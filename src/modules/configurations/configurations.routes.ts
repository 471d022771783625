import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdString, MessageBody, ProjectParams } from '../../http/schemas.js';
import {
  Configuration,
  ConfigurationList,
  ConfigurationParams,
  ConfigurationUsage,
  CreateConfigurationBody,
  UpdateConfigurationBody,
} from './configurations.schemas.js';
import * as service from './configurations.service.js';

export const configurationsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.get(
    '/project/:project/configuration',
    {
      schema: {
        tags: ['configurations'],
        summary: 'List the configurations of a project',
        params: ProjectParams,
        response: { 200: ConfigurationList, ...errorResponses },
      },
    },
    async (req) => ({
      configurations: await service.listConfigurations(db, req.actor, req.params.project),
    }),
  );

  app.post(
    '/project/:project/configuration',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['configurations'],
        summary: 'Create a configuration',
        params: ProjectParams,
        body: CreateConfigurationBody,
        response: { 201: IdString, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createConfiguration(db, req.actor, req.params.project, req.body)),
  );
  app.patch(
    '/project/:project/configuration/:configuration',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['configurations'],
        summary: 'Rename a configuration; 409 when another configuration of the project has the title',
        params: ConfigurationParams,
        body: UpdateConfigurationBody,
        response: { 200: Configuration, ...errorResponses },
      },
    },
    async (req) =>
      service.updateConfiguration(db, req.actor, req.params.project, req.params.configuration, req.body),
  );

  app.get(
    '/project/:project/configuration/:configuration/usage',
    {
      schema: {
        tags: ['configurations'],
        summary: 'Count the runs that use a configuration (and the open ones): what deleting it concerns',
        params: ConfigurationParams,
        response: { 200: ConfigurationUsage, ...errorResponses },
      },
    },
    async (req) => service.getConfigurationUsage(db, req.actor, req.params.project, req.params.configuration),
  );

  app.delete(
    '/project/:project/configuration/:configuration',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['configurations'],
        summary: 'Delete a configuration; runs that used it stay, without a configuration',
        params: ConfigurationParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.deleteConfiguration(db, req.actor, req.params.project, req.params.configuration);
      return { message: 'Configuration deleted' };
    },
  );
};
