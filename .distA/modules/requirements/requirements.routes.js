import { errorResponses, ProjectParams } from '../../http/schemas.js';
import { RequirementList, RequirementListQuery } from './requirements.schemas.js';
import * as service from './requirements.service.js';
export const requirementsRoutes = async (app) => {
    const { db } = app;
    app.get('/project/:project/requirement', {
        schema: {
            tags: ['requirements'],
            summary: "List the project's requirements (created or linked by test cases), optionally with usage counts",
            params: ProjectParams,
            querystring: RequirementListQuery,
            response: { 200: RequirementList, ...errorResponses },
        },
    }, async (req) => ({
        requirements: await service.listRequirements(db, req.actor, req.params.project, req.query),
    }));
};
//# sourceMappingURL=requirements.routes.js.map