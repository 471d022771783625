import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdString, MessageBody } from '../../http/schemas.js';
import {
  CreateWebhookBody,
  Delivery,
  DeliveryCount,
  DeliveryList,
  DeliveryListQuery,
  DeliveryParams,
  DeliveryWithBody,
  PayloadPreview,
  PayloadPreviewBody,
  UpdateWebhookBody,
  Webhook,
  WebhookList,
  WebhookParams,
} from './webhooks.schemas.js';
import * as service from './webhooks.service.js';
import { ping, redeliver } from './webhook-deliveries.js';
import { previewPayload } from './webhook-preview.js';

export const webhooksRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, ctx } = app;
  const settings = { secretKey: config.secretKey, guard: ctx.outboundGuard };
  // D3: webhooks are managed by admins, tenant-wide.
  const admin = { access: { minRole: 'admin' as const } };
  const tags = ['webhooks'];

  app.get(
    '/webhook',
    {
      config: admin,
      schema: {
        tags,
        summary: 'List webhooks (admin; secrets and header values are never returned)',
        response: { 200: WebhookList, ...errorResponses },
      },
    },
    async (req) => ({ webhooks: await service.listWebhooks(db, req.actor.tenantId, settings) }),
  );

  app.post(
    '/webhook',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Create a webhook (admin)',
        body: CreateWebhookBody,
        response: { 201: IdString, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createWebhook(db, req.actor, req.body, settings)),
  );

  app.post(
    '/webhook/payload-preview',
    {
      config: admin,
      schema: {
        tags,
        summary:
          'Render a payload template (or the default body) against a sample event: the body a receiver would get (admin; nothing is stored or sent)',
        body: PayloadPreviewBody,
        response: { 200: PayloadPreview, ...errorResponses },
      },
    },
    async (req) => previewPayload(req.actor.tenantId, req.body),
  );

  app.get(
    '/webhook/:webhookId',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Get a webhook (admin)',
        params: WebhookParams,
        response: { 200: Webhook, ...errorResponses },
      },
    },
    async (req) => service.getWebhook(db, req.actor.tenantId, req.params.webhookId, settings),
  );

  app.patch(
    '/webhook/:webhookId',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Update a webhook; only the given fields change; `enabled` enables or disables it (admin)',
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: Webhook, ...errorResponses },
      },
    },
    async (req) => service.updateWebhook(db, req.actor, req.params.webhookId, req.body, settings),
  );

  app.delete(
    '/webhook/:webhookId',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Delete a webhook and its delivery records (admin)',
        params: WebhookParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.deleteWebhook(db, req.actor, req.params.webhookId);
      return { message: 'Webhook deleted' };
    },
  );

  app.get(
    '/webhook/:webhookId/delivery',
    {
      config: admin,
      schema: {
        tags,
        summary: "List a webhook's deliveries, newest first (admin)",
        params: WebhookParams,
        querystring: DeliveryListQuery,
        response: { 200: DeliveryList, ...errorResponses },
      },
    },
    async (req) => service.listDeliveries(db, req.actor.tenantId, req.params.webhookId, req.query),
  );

  app.get(
    '/webhook/:webhookId/delivery/count',
    {
      config: admin,
      schema: {
        tags,
        summary: "Count a webhook's delivery records and the pending ones: what deleting it removes (admin)",
        params: WebhookParams,
        response: { 200: DeliveryCount, ...errorResponses },
      },
    },
    async (req) => service.countDeliveries(db, req.actor.tenantId, req.params.webhookId),
  );

  app.get(
    '/webhook/:webhookId/delivery/:deliveryId',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Get a delivery with the body sent (admin)',
        params: DeliveryParams,
        response: { 200: DeliveryWithBody, ...errorResponses },
      },
    },
    async (req) => service.getDelivery(db, req.actor.tenantId, req.params.webhookId, req.params.deliveryId),
  );

  app.post(
    '/webhook/:webhookId/delivery/:deliveryId/redeliver',
    {
      config: admin,
      schema: {
        tags,
        summary: "Send a delivery's event again as a new delivery (admin)",
        params: DeliveryParams,
        response: { 201: IdString, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await redeliver(db, req.actor.tenantId, req.params.webhookId, req.params.deliveryId)),
  );

  app.post(
    '/webhook/:webhookId/ping',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Send a ping now and answer its delivery record (admin)',
        params: WebhookParams,
        response: { 200: Delivery, ...errorResponses },
      },
    },
    async (req) => ping(db, req.actor.tenantId, req.params.webhookId, settings),
  );
};
