import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requestSource } from '../../../http/auth.js';
import { errorResponses, ProjectParams } from '../../../http/schemas.js';
import {
  CreatedShare,
  CreateShareBody,
  SharedReport,
  ShareIdParams,
  ShareList,
  ShareTokenParams,
} from './shares.schemas.js';
import * as service from './shares.service.js';

const tags = ['reports'];

/** Shared report links (extensions.md §6): made, listed and revoked by the project's members. */
export const reportSharesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app;

  app.post(
    '/project/:project/report/share',
    {
      config: { access: { minRole: service.SHARE_MIN_ROLE } },
      schema: {
        tags,
        summary: 'Create an expiring, read-only link to one report that opens without signing in',
        params: ProjectParams,
        body: CreateShareBody,
        response: { 201: CreatedShare, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createShare(db, req.actor, req.params.project, req.body, config)),
  );

  app.get(
    '/project/:project/report/share',
    {
      schema: {
        tags,
        summary: "The project's shared report links (never their tokens)",
        params: ProjectParams,
        response: { 200: ShareList, ...errorResponses },
      },
    },
    async (req) => service.listShares(db, req.actor, req.params.project),
  );

  app.delete(
    '/project/:project/report/share/:id',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags,
        summary: 'Revoke a shared report link (its creator or an admin)',
        params: ShareIdParams,
        response: { 204: Type.Null({ description: 'revoked' }), ...errorResponses },
      },
    },
    async (req, reply) => {
      await service.revokeShare(db, req.actor, req.params.project, req.params.id);
      return reply.code(204).send(null);
    },
  );
};

/** The web application's read of a shared link: no session, the token is the only credential, for this one read. */
export const reportSharesPrivateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.get(
    '/shared-report/:token',
    {
      // The token stays out of the request log (src/http/log-redaction.ts).
      config: { access: { public: true }, secretParams: ['token'] },
      // On every answer, a refused token's 400 too: the page's token must not leak to the sites it links to, nor
      // be indexed, and no cache may keep a report that stops answering when the link is revoked or its maker
      // loses access.
      onRequest: async (_req, reply) => {
        reply
          .header('referrer-policy', 'no-referrer')
          .header('x-robots-tag', 'noindex')
          .header('cache-control', 'no-store');
      },
      schema: {
        tags,
        summary: 'The report a shared link opens (web application; public, the token in the path)',
        params: ShareTokenParams,
        response: { 200: SharedReport, ...errorResponses },
      },
    },
    async (req) => service.readShared(db, await requestSource(app, req), req.params.token),
  );
};
