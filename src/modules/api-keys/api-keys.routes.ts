import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, MessageBody } from '../../http/schemas.js';
import {
  ApiKeyList,
  CreatedApiKey,
  CreateKeyBody,
  CreateOwnKeyBody,
  KeyIdParams,
  KeyListQuery,
} from './api-keys.schemas.js';
import * as service from './api-keys.service.js';

const ADMIN = { access: { minRole: 'admin' as const } };
/**
 * Making a key takes the session cookie (src/http/auth.ts): a leaked key or device token must not mint a lasting
 * key, which would outlive the password reset that ends device sign-ins (docs/api-decisions.md#keys-are-made-signed-in).
 */
const KEY_MAKING =
  'API keys are made by a person signed in to the web page: sign in to make one; API keys and device tokens may not';
const tags = ['api-keys'];

/** D2: API keys managed through the API: one's own under /users/me, anyone's (admin) under /api-keys. */
export const apiKeysRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.get(
    '/users/me/api-keys',
    {
      schema: {
        tags,
        summary: "List one's own API keys (never their secrets)",
        response: { 200: ApiKeyList, ...errorResponses },
      },
    },
    async (req) => ({ apiKeys: await service.listKeys(db, req.actor, req.actor.userId) }),
  );

  app.post(
    '/users/me/api-keys',
    {
      config: { access: { sessionOnly: KEY_MAKING } },
      schema: {
        tags,
        summary: 'Create an API key for oneself; the key is shown only in this answer',
        body: CreateOwnKeyBody,
        response: { 201: CreatedApiKey, ...errorResponses },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createKeyAs(db, req.actor, req.body)),
  );

  app.delete(
    '/users/me/api-keys/:keyId',
    {
      schema: {
        tags,
        summary: "Revoke one of one's own API keys; it stops working at once",
        params: KeyIdParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.revokeKeyAs(db, req.actor, req.params.keyId, true);
      return { message: 'API key revoked' };
    },
  );

  app.get(
    '/api-keys',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: "List the tenant's API keys, or one user's (admin; never their secrets)",
        querystring: KeyListQuery,
        response: { 200: ApiKeyList, ...errorResponses },
      },
    },
    async (req) => ({ apiKeys: await service.listKeys(db, req.actor, req.query.userId) }),
  );

  app.post(
    '/api-keys',
    {
      config: { access: { ...ADMIN.access, sessionOnly: KEY_MAKING } },
      schema: {
        tags,
        summary:
          'Create an API key for a user one manages (admin; e.g. a CI account); shown only in this answer',
        body: CreateKeyBody,
        response: { 201: CreatedApiKey, ...errorResponses },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createKeyAs(db, req.actor, req.body)),
  );

  app.delete(
    '/api-keys/:keyId',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Revoke an API key of oneself or of a user one manages (admin)',
        params: KeyIdParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.revokeKeyAs(db, req.actor, req.params.keyId, false);
      return { message: 'API key revoked' };
    },
  );
};
