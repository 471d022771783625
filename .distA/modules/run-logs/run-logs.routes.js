import { errorResponses } from '../../http/schemas.js';
import { RunParams } from '../runs/runs.schemas.js';
import { CreateRunLogBody, RunLogId, RunLogList } from './run-logs.schemas.js';
import * as service from './run-logs.service.js';
export const runLogsRoutes = async (app) => {
    const { db } = app;
    app.post('/project/:project/run/:run/log', {
        config: { access: { minRole: 'test-runner' } },
        schema: {
            tags: ['run logs'],
            summary: 'Record a message (HTML) against an open run',
            params: RunParams,
            body: CreateRunLogBody,
            response: { 201: RunLogId, ...errorResponses },
        },
    }, async (req, reply) => reply
        .code(201)
        .send(await service.createRunLog(db, req.actor, req.params.project, req.params.run, req.body)));
    app.get('/project/:project/run/:run/log', {
        schema: {
            tags: ['run logs'],
            summary: 'List the messages recorded against a run, oldest first',
            params: RunParams,
            response: { 200: RunLogList, ...errorResponses },
        },
    }, async (req) => ({ logs: await service.listRunLogs(db, req.actor, req.params.project, req.params.run) }));
};
//# sourceMappingURL=run-logs.routes.js.map