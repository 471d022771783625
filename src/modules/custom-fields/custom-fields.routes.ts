import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdString, MessageBody, ProjectParams } from '../../http/schemas.js';
import {
  CreateCustomFieldBody,
  CustomField,
  CustomFieldList,
  CustomFieldParams,
  CustomFieldUsage,
  OrderCustomFieldsBody,
  UpdateCustomFieldBody,
} from './custom-fields.schemas.js';
import * as service from './custom-fields.service.js';

export const customFieldsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;
  const tags = ['custom fields'];
  const admin = { access: { minRole: 'admin' as const } };

  app.get(
    '/project/:project/custom-field',
    {
      schema: {
        tags,
        summary: 'List the custom fields available in a project (enabled or not), by position',
        params: ProjectParams,
        response: { 200: CustomFieldList, ...errorResponses },
      },
    },
    async (req) => ({
      customFields: await service.listProjectCustomFields(db, req.actor, req.params.project),
    }),
  );

  app.get(
    '/custom-field',
    {
      config: admin,
      schema: {
        tags,
        summary: 'List every custom field of the tenant, by position (admin)',
        response: { 200: CustomFieldList, ...errorResponses },
      },
    },
    async (req) => ({ customFields: await service.listCustomFields(db, req.actor) }),
  );

  app.get(
    '/custom-field/:id',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Get one custom field (admin)',
        params: CustomFieldParams,
        response: { 200: CustomField, ...errorResponses },
      },
    },
    async (req) => service.getCustomField(db, req.actor, req.params.id),
  );

  app.get(
    '/custom-field/:id/usage',
    {
      config: admin,
      schema: {
        tags,
        summary:
          'How many test cases and versions hold a value of the field: what deleting it removes (admin)',
        params: CustomFieldParams,
        response: { 200: CustomFieldUsage, ...errorResponses },
      },
    },
    async (req) => service.getCustomFieldUsage(db, req.actor, req.params.id),
  );

  app.post(
    '/custom-field',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Create a custom field (admin); it goes last in the order',
        body: CreateCustomFieldBody,
        response: { 201: IdString, ...errorResponses },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createCustomField(db, req.actor, req.body)),
  );

  app.post(
    '/custom-field/order',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Reorder the custom fields (admin): list every id once',
        body: OrderCustomFieldsBody,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.orderCustomFields(db, req.actor, req.body.ids);
      return { message: 'Custom fields reordered' };
    },
  );

  app.patch(
    '/custom-field/:id',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Change a custom field (admin): name, required, enabled, options, default, projects',
        params: CustomFieldParams,
        body: UpdateCustomFieldBody,
        response: { 200: CustomField, ...errorResponses },
      },
    },
    async (req) => service.updateCustomField(db, req.actor, req.params.id, req.body ?? {}),
  );

  app.delete(
    '/custom-field/:id',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Delete a custom field (admin); test cases lose its values',
        params: CustomFieldParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.deleteCustomField(db, req.actor, req.params.id);
      return { message: 'Custom field deleted' };
    },
  );
};
