import { errorResponses, ProjectParams } from '../../http/schemas.js';
import { TagList, TagListQuery } from './tags.schemas.js';
import * as service from './tags.service.js';
export const tagsRoutes = async (app) => {
    const { db } = app;
    app.get('/project/:project/tag', {
        schema: {
            tags: ['tags'],
            summary: "List the project's tags (created on demand by test cases), optionally with usage counts",
            params: ProjectParams,
            querystring: TagListQuery,
            response: { 200: TagList, ...errorResponses },
        },
    }, async (req) => ({ tags: await service.listTags(db, req.actor, req.params.project, req.query) }));
};
//# sourceMappingURL=tags.routes.js.map