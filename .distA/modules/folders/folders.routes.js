import { errorResponses, ProjectParams } from '../../http/schemas.js';
import { BulkFoldersBody, BulkFoldersResponse, FolderList, FolderListQuery } from './folders.schemas.js';
import * as service from './folders.service.js';
export const foldersRoutes = async (app) => {
    const { db } = app;
    app.get('/project/:project/tcase/folders', {
        schema: {
            tags: ['folders'],
            summary: 'List the folders of a project (whole tree depth-first unless paginated)',
            params: ProjectParams,
            querystring: FolderListQuery,
            response: { 200: FolderList, ...errorResponses },
        },
    }, async (req) => service.listFolders(db, req.actor, req.params.project, req.query));
    app.post('/project/:project/tcase/folder/bulk', {
        config: { access: { minRole: 'test-runner' } },
        schema: {
            tags: ['folders'],
            summary: 'Create or update folders by path',
            params: ProjectParams,
            body: BulkFoldersBody,
            response: { 200: BulkFoldersResponse, ...errorResponses },
        },
    }, async (req) => service.bulkUpsertFolders(db, req.actor, req.params.project, req.body));
};
//# sourceMappingURL=folders.routes.js.map