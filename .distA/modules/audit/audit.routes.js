import { errorResponses } from '../../http/schemas.js';
import { AuditLogPage, AuditLogQuery } from './audit.schemas.js';
import * as service from './audit.service.js';
export const auditRoutes = async (app) => {
    const { db } = app;
    app.get('/audit-logs', {
        // D5: the one route SIEM-LOG-ONLY keys may call; still admin only.
        config: { access: { minRole: 'admin', allowRestrictedKey: true } },
        schema: {
            tags: ['audit'],
            summary: 'Read the audit log (admin; needs the advanced-auth feature)',
            querystring: AuditLogQuery,
            response: { 200: AuditLogPage, ...errorResponses },
        },
    }, async (req) => service.listAuditEvents(db, req.actor.tenantId, req.query));
};
//# sourceMappingURL=audit.routes.js.map