import { errorResponses, IdString, ProjectParams } from '../../http/schemas.js';
import { ConfigurationList, CreateConfigurationBody } from './configurations.schemas.js';
import * as service from './configurations.service.js';
export const configurationsRoutes = async (app) => {
    const { db } = app;
    app.get('/project/:project/configuration', {
        schema: {
            tags: ['configurations'],
            summary: 'List the configurations of a project',
            params: ProjectParams,
            response: { 200: ConfigurationList, ...errorResponses },
        },
    }, async (req) => ({
        configurations: await service.listConfigurations(db, req.actor, req.params.project),
    }));
    app.post('/project/:project/configuration', {
        config: { access: { minRole: 'test-runner' } },
        schema: {
            tags: ['configurations'],
            summary: 'Create a configuration',
            params: ProjectParams,
            body: CreateConfigurationBody,
            response: { 201: IdString, ...errorResponses },
        },
    }, async (req, reply) => reply.code(201).send(await service.createConfiguration(db, req.actor, req.params.project, req.body)));
};
//# sourceMappingURL=configurations.routes.js.map