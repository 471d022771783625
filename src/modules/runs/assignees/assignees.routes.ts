import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, ProjectParams } from '../../../http/schemas.js';
import { RunParams } from '../runs.schemas.js';
import { AssignRunTcasesBody, AssignRunTcasesResponse, RunAssignableList } from './assignees.schemas.js';
import { assignRunTcases, listProjectAssignable, listRunAssignable } from './assignees.service.js';

/** Assignees of run test cases (docs/api-decisions.md#run-test-case-assignees). */
export const runAssigneesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.get(
    '/project/:project/assignable',
    {
      schema: {
        tags: ['runs'],
        summary:
          'Who can be assigned a run of the project or its test cases (active, above viewer, with access to the project)',
        params: ProjectParams,
        response: { 200: RunAssignableList, ...errorResponses },
      },
    },
    async (req) => listProjectAssignable(db, req.actor, req.params.project),
  );

  app.get(
    '/project/:project/run/:run/assignable',
    {
      schema: {
        tags: ['runs'],
        summary:
          "Who can be assigned the run's test cases (active, above viewer, with access to the project)",
        params: RunParams,
        response: { 200: RunAssignableList, ...errorResponses },
      },
    },
    async (req) => listRunAssignable(db, req.actor, req.params.project, req.params.run),
  );

  app.post(
    '/project/:project/run/:run/tcase/assign',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['runs'],
        summary: 'Assign test cases of an open run to a person, or to nobody (all or nothing)',
        params: RunParams,
        body: AssignRunTcasesBody,
        response: { 200: AssignRunTcasesResponse, ...errorResponses },
      },
    },
    async (req) => assignRunTcases(db, req.actor, req.params.project, req.params.run, req.body),
  );
};
