import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdNumber, MessageBody, ProjectParams } from '../../http/schemas.js';
import {
  CreateSharedStepBody,
  SharedStep,
  SharedStepList,
  SharedStepListQuery,
  SharedStepParams,
  SharedStepVersionParams,
  UpdateSharedStepBody,
} from './shared-steps.schemas.js';
import { SharedItemUserList } from '../shared-items/shared-items.schemas.js';
import * as service from './shared-steps.service.js';

export const sharedStepsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;
  const tags = ['shared steps'];

  app.get(
    '/project/:project/shared-step',
    {
      schema: {
        tags,
        summary:
          "List the project's shared steps (latest versions, not deleted), optionally with usage counts",
        params: ProjectParams,
        querystring: SharedStepListQuery,
        response: { 200: SharedStepList, ...errorResponses },
      },
    },
    async (req) => ({
      sharedSteps: await service.listSharedSteps(db, req.actor, req.params.project, req.query),
    }),
  );

  app.get(
    '/project/:project/shared-step/:id',
    {
      schema: {
        tags,
        summary: 'Get a shared step at its latest version (a deleted one carries deletedAt)',
        params: SharedStepParams,
        response: { 200: SharedStep, ...errorResponses },
      },
    },
    async (req) => service.getSharedStep(db, req.actor, req.params.project, req.params.id),
  );

  app.get(
    '/project/:project/shared-step/:id/tcase',
    {
      schema: {
        tags,
        summary: 'List the live test cases that use a shared step (what editing it changes), by seq',
        params: SharedStepParams,
        response: { 200: SharedItemUserList, ...errorResponses },
      },
    },
    async (req) => service.listSharedStepUsers(db, req.actor, req.params.project, req.params.id),
  );

  app.get(
    '/project/:project/shared-step/:id/version/:version',
    {
      schema: {
        tags,
        summary: 'Get a shared step as it was at one version',
        params: SharedStepVersionParams,
        response: { 200: SharedStep, ...errorResponses },
      },
    },
    async (req) =>
      service.getSharedStep(db, req.actor, req.params.project, req.params.id, req.params.version),
  );

  app.post(
    '/project/:project/shared-step',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags,
        summary: 'Create a shared step with its sub-steps (version 1)',
        params: ProjectParams,
        body: CreateSharedStepBody,
        response: { 201: IdNumber, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createSharedStep(db, req.actor, req.params.project, req.body)),
  );

  app.patch(
    '/project/:project/shared-step/:id',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags,
        summary: 'Change a shared step: a real change makes a new version; answers the latest version',
        params: SharedStepParams,
        body: UpdateSharedStepBody,
        response: { 200: SharedStep, ...errorResponses },
      },
    },
    async (req) => service.updateSharedStep(db, req.actor, req.params.project, req.params.id, req.body ?? {}),
  );

  app.delete(
    '/project/:project/shared-step/:id',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags,
        summary: 'Delete a shared step (409 while a test case uses it)',
        params: SharedStepParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.deleteSharedStep(db, req.actor, req.params.project, req.params.id);
      return { message: 'Shared step deleted' };
    },
  );
};
