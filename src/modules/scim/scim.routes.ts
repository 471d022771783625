import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { scimActor } from '../../http/auth.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { notFound } from '../../errors.js';
import { originOf } from '../../lib/urls.js';
import { ERROR_SCHEMA, ScimError, type ScimType } from './scim.protocol.js';
import * as discovery from './scim.discovery.js';
import * as usersScim from './scim.users.service.js';
import * as groupsScim from './scim.groups.service.js';

/** Where the SCIM routes live: outside `/api` (an identity provider is given `<origin>/scim/v2`). */
export const SCIM_PREFIX = '/scim/v2';
const SCIM_JSON = 'application/scim+json; charset=utf-8';

const ListQuery = Type.Object({
  filter: Type.Optional(Type.String({ maxLength: 2000 })),
  startIndex: Type.Optional(Type.Integer()),
  count: Type.Optional(Type.Integer()),
  attributes: Type.Optional(Type.String({ maxLength: 2000 })),
  excludedAttributes: Type.Optional(Type.String({ maxLength: 2000 })),
});
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const SchemaIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
/** SCIM bodies carry any schema's attributes (extensions included): the services read what Casebook keeps. */
const ScimBody = Type.Object({}, { additionalProperties: true });
const hidden = { hide: true };

const scimTypes = new WeakMap<FastifyRequest, ScimType>();

/**
 * docs/api-decisions.md#scim-provisioning: SCIM 2.0 (RFC 7643/7644) for identity providers. Errors keep the API's
 * one table (src/errors.ts, the one error handler) for their status, and are answered in SCIM's error shape here.
 */
export const scimRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app;
  const base = (req: FastifyRequest) =>
    `${originOf(`${req.protocol}://${req.host}`) ?? new URL(config.publicUrl).origin}${SCIM_PREFIX}`;

  // Okta and Entra ID send `application/scim+json`; the body is JSON like the API's.
  const json = app.getDefaultJsonParser('error', 'ignore');
  app.addContentTypeParser('application/scim+json', { parseAs: 'string' }, json);

  app.addHook('onRequest', async (req) => {
    req.actor = await scimActor(db, config, req);
  });
  app.addHook('onError', async (req, _reply, error) => {
    if (error instanceof ScimError && error.scimType) scimTypes.set(req, error.scimType);
    else if (isUniqueViolation(error)) scimTypes.set(req, 'uniqueness');
    else if ((error as { validation?: unknown }).validation) scimTypes.set(req, 'invalidValue');
    else if (error instanceof SyntaxError) scimTypes.set(req, 'invalidSyntax');
  });
  // Every answer is SCIM JSON; an error's D7 body becomes SCIM's (RFC 7644 §3.12), with the same status.
  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    reply.header('content-type', SCIM_JSON);
    if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
    let message = payload;
    try {
      message = (JSON.parse(payload) as { message?: string }).message ?? payload;
    } catch {
      // not JSON: the text is the detail
    }
    const scimType = scimTypes.get(req);
    return JSON.stringify({
      schemas: [ERROR_SCHEMA],
      status: String(reply.statusCode),
      ...(scimType ? { scimType } : {}),
      detail: message,
    });
  });

  const list = { schema: { hide: true, querystring: ListQuery } };
  const one = { schema: { hide: true, params: IdParams } };
  const write = { schema: { hide: true, params: IdParams, body: ScimBody } };
  const wantsMembers = (q: { excludedAttributes?: string }) =>
    !(q.excludedAttributes ?? '').split(',').some((a) => a.trim().toLowerCase() === 'members');

  app.get('/ServiceProviderConfig', { schema: hidden }, async (req) =>
    discovery.serviceProviderConfig(base(req)),
  );
  app.get('/ResourceTypes', { schema: hidden }, async (req) => discovery.resourceTypes(base(req)));
  app.get('/ResourceTypes/:id', { schema: { hide: true, params: SchemaIdParams } }, async (req) => {
    const found = discovery.resourceTypeById(base(req), req.params.id);
    if (!found) throw notFound(`no resource type ${req.params.id}`);
    return found;
  });
  app.get('/Schemas', { schema: hidden }, async (req) => discovery.schemas(base(req)));
  app.get('/Schemas/:id', { schema: { hide: true, params: SchemaIdParams } }, async (req) => {
    const found = discovery.schemaById(base(req), req.params.id);
    if (!found) throw notFound(`no schema ${req.params.id}`);
    return found;
  });

  app.get('/Users', list, async (req) => usersScim.listScimUsers(db, req.actor, req.query, base(req)));
  app.get('/Users/:id', one, async (req) => usersScim.getScimUser(db, req.actor, req.params.id, base(req)));
  app.post('/Users', { schema: { hide: true, body: ScimBody } }, async (req, reply) => {
    const user = await usersScim.createScimUser(db, req.actor, req.body, base(req));
    return reply.code(201).header('location', user.meta.location).send(user);
  });
  app.put('/Users/:id', write, async (req) =>
    usersScim.replaceScimUser(db, req.actor, req.params.id, req.body, base(req)),
  );
  app.patch('/Users/:id', write, async (req) =>
    usersScim.patchScimUser(db, req.actor, req.params.id, req.body, base(req)),
  );
  app.delete('/Users/:id', one, async (req, reply) => {
    await usersScim.deleteScimUser(db, req.actor, req.params.id);
    return reply.code(204).send();
  });

  app.get('/Groups', list, async (req) =>
    groupsScim.listScimGroups(db, req.actor, req.query, base(req), wantsMembers(req.query)),
  );
  app.get('/Groups/:id', { schema: { hide: true, params: IdParams, querystring: ListQuery } }, async (req) =>
    groupsScim.getScimGroup(db, req.actor, req.params.id, base(req), wantsMembers(req.query)),
  );
  app.post('/Groups', { schema: { hide: true, body: ScimBody } }, async (req, reply) => {
    const group = await groupsScim.createScimGroup(db, req.actor, req.body, base(req));
    return reply.code(201).header('location', group.meta.location).send(group);
  });
  app.put('/Groups/:id', write, async (req) =>
    groupsScim.replaceScimGroup(db, req.actor, req.params.id, req.body, base(req)),
  );
  app.patch('/Groups/:id', write, async (req) =>
    groupsScim.patchScimGroup(db, req.actor, req.params.id, req.body, base(req)),
  );
  app.delete('/Groups/:id', one, async (req, reply) => {
    await groupsScim.deleteScimGroup(db, req.actor, req.params.id);
    return reply.code(204).send();
  });
};
