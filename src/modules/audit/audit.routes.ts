import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.js';
import { listAuditActions } from './audit-actions.js';
import { AuditActionList, AuditExportQuery, AuditLogPage, AuditLogQuery } from './audit.schemas.js';
import * as service from './audit.service.js';

export const auditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.get(
    '/audit-logs',
    {
      // D5: the one route SIEM-LOG-ONLY keys may call; still admin only.
      config: { access: { minRole: 'admin', allowRestrictedKey: true } },
      schema: {
        tags: ['audit'],
        summary: 'Read the audit log (admin; needs the advanced-auth feature)',
        querystring: AuditLogQuery,
        response: { 200: AuditLogPage, ...errorResponses },
      },
    },
    async (req) => service.listAuditEvents(db, req.actor.tenantId, req.query),
  );
  app.get(
    '/audit-logs/actions',
    {
      config: { access: { minRole: 'admin' } },
      schema: {
        tags: ['audit'],
        summary: "Every action the audit log records, with the viewer's words for it (admin)",
        response: { 200: AuditActionList, ...errorResponses },
      },
    },
    async () => ({ actions: listAuditActions() }),
  );
  app.get(
    '/audit-logs/export',
    {
      config: { access: { minRole: 'admin', allowRestrictedKey: true } },
      schema: {
        tags: ['audit'],
        summary:
          "Download the filtered audit events as CSV, streamed in id order, or newest first with order=desc (admin; the page's filters, no paging)",
        querystring: AuditExportQuery,
        produces: ['text/csv'],
        response: {
          200: Type.String({ description: 'CSV (RFC 4180), one row per event' }),
          ...errorResponses,
        },
      },
    },
    async (req, reply) => {
      const lines = await service.exportAuditEvents(db, req.actor.tenantId, req.query);
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="audit-log-${day}.csv"`)
        .send(Readable.from(lines) as never); // a stream: the schema's string is the document's, not a serializer's
    },
  );
};
