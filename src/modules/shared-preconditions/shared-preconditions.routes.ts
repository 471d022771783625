import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdNumber, MessageBody, ProjectParams } from '../../http/schemas.js';
import {
  CreateSharedPreconditionBody,
  SharedPrecondition,
  SharedPreconditionList,
  SharedPreconditionListQuery,
  SharedPreconditionParams,
  SharedPreconditionVersionParams,
  UpdateSharedPreconditionBody,
} from './shared-preconditions.schemas.js';
import { SharedItemUserList } from '../shared-items/shared-items.schemas.js';
import * as service from './shared-preconditions.service.js';

export const sharedPreconditionsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;
  const tags = ['shared preconditions'];

  app.get(
    '/project/:project/shared-precondition',
    {
      schema: {
        tags,
        summary: "List the project's shared preconditions (a bare array; latest versions, not deleted)",
        params: ProjectParams,
        querystring: SharedPreconditionListQuery,
        response: { 200: SharedPreconditionList, ...errorResponses },
      },
    },
    async (req) => service.listSharedPreconditions(db, req.actor, req.params.project, req.query),
  );

  app.get(
    '/project/:project/shared-precondition/:id',
    {
      schema: {
        tags,
        summary: 'Get a shared precondition at its latest version (a deleted one carries deletedAt)',
        params: SharedPreconditionParams,
        response: { 200: SharedPrecondition, ...errorResponses },
      },
    },
    async (req) => service.getSharedPrecondition(db, req.actor, req.params.project, req.params.id),
  );

  app.get(
    '/project/:project/shared-precondition/:id/tcase',
    {
      schema: {
        tags,
        summary: 'List the live test cases that use a shared precondition (what editing it changes), by seq',
        params: SharedPreconditionParams,
        response: { 200: SharedItemUserList, ...errorResponses },
      },
    },
    async (req) => service.listSharedPreconditionUsers(db, req.actor, req.params.project, req.params.id),
  );

  app.get(
    '/project/:project/shared-precondition/:id/version/:version',
    {
      schema: {
        tags,
        summary: 'Get a shared precondition as it was at one version',
        params: SharedPreconditionVersionParams,
        response: { 200: SharedPrecondition, ...errorResponses },
      },
    },
    async (req) =>
      service.getSharedPrecondition(db, req.actor, req.params.project, req.params.id, req.params.version),
  );

  app.post(
    '/project/:project/shared-precondition',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags,
        summary: 'Create a shared precondition (version 1)',
        params: ProjectParams,
        body: CreateSharedPreconditionBody,
        response: { 201: IdNumber, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await service.createSharedPrecondition(db, req.actor, req.params.project, req.body)),
  );

  app.patch(
    '/project/:project/shared-precondition/:id',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags,
        summary:
          'Change a shared precondition: a real change makes a new version; answers the latest version',
        params: SharedPreconditionParams,
        body: UpdateSharedPreconditionBody,
        response: { 200: SharedPrecondition, ...errorResponses },
      },
    },
    async (req) =>
      service.updateSharedPrecondition(db, req.actor, req.params.project, req.params.id, req.body ?? {}),
  );

  app.delete(
    '/project/:project/shared-precondition/:id',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags,
        summary: 'Delete a shared precondition (409 while a test case uses it)',
        params: SharedPreconditionParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.deleteSharedPrecondition(db, req.actor, req.params.project, req.params.id);
      return { message: 'Shared precondition deleted' };
    },
  );
};
