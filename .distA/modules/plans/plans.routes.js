import { errorResponses, IdNumber, ProjectParams } from '../../http/schemas.js';
import { CreatePlanBody, PlanList, PlanParams, PlanWithRuns } from './plans.schemas.js';
import * as service from './plans.service.js';
export const plansRoutes = async (app) => {
    const { db } = app;
    app.post('/project/:project/plan', {
        config: { access: { minRole: 'test-runner' } },
        schema: {
            tags: ['plans'],
            summary: 'Create a test plan with its runs, in one transaction',
            params: ProjectParams,
            body: CreatePlanBody,
            response: { 201: IdNumber, ...errorResponses },
        },
    }, async (req, reply) => reply.code(201).send(await service.createPlan(db, req.actor, req.params.project, req.body)));
    app.get('/project/:project/plan', {
        schema: {
            tags: ['plans'],
            summary: 'List the test plans of a project, newest first',
            params: ProjectParams,
            response: { 200: PlanList, ...errorResponses },
        },
    }, async (req) => ({ plans: await service.listPlans(db, req.actor, req.params.project) }));
    app.get('/project/:project/plan/:plan', {
        schema: {
            tags: ['plans'],
            summary: 'Get a test plan with its runs',
            params: PlanParams,
            response: { 200: PlanWithRuns, ...errorResponses },
        },
    }, async (req) => service.getPlan(db, req.actor, req.params.project, req.params.plan));
};
//# sourceMappingURL=plans.routes.js.map