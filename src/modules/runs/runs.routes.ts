import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdNumber, MessageBody, ProjectParams } from '../../http/schemas.js';
import {
  CloneRunBody,
  CreateRunBody,
  GetRunQuery,
  ListRunsQuery,
  ListRunTcasesQuery,
  Run,
  RunList,
  RunParams,
  RunTcaseCountResponse,
  RunTcaseDetail,
  RunTcaseIdsBody,
  RunTcaseList,
  RunTcaseParams,
} from './runs.schemas.js';
import * as runTcases from './run-tcases/run-tcases.service.js';
import { RunPreviewBody, RunPreviewResponse } from './preview/preview.schemas.js';
import { previewRunSelection } from './preview/preview.service.js';
import { UpdateRunBody } from './run-edit/run-edit.schemas.js';
import { updateRun } from './run-edit/run-edit.service.js';
import { RunChangesQuery, RunChangesResponse } from './changes/changes.schemas.js';
import { listRunChanges } from './changes/changes.service.js';
import * as service from './runs.service.js';
import { sendJsonBody } from '../../http/json-body.js';

/*
 * What is where in runs/ (one owner of run state: runs, their test cases, results and the counters). Here at the
 * root, the run itself (runs.*: list, get, create, clone, close, add/remove cases, and the run checks of every write
 * into a run) and the faces other modules use: run-creation.service.ts (body rules, query plans, insert; plans use
 * it) and tracker-comments.service.ts (issue-tracker comment-back, D24). One folder per part: results/ (single and
 * batch results, their routes and the group commit), run-tcases/ (a run's cases as shown), run-edit/ (PATCH),
 * preview/ (the query-plan preview), changes/ (what changed since a cursor), history/ (a case's latest result per
 * run), propagation/ (test-case changes into open live runs, D17). This file holds every /run route but results'.
 */
const write = { access: { minRole: 'test-runner' as const } };

export const runsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, ctx } = app;

  app.get(
    '/project/:project/run',
    {
      schema: {
        tags: ['runs'],
        summary: 'List the runs of a project, newest first',
        params: ProjectParams,
        querystring: ListRunsQuery,
        response: { 200: RunList, ...errorResponses },
      },
    },
    async (req) => ({ runs: await service.listRuns(db, req.actor, req.params.project, req.query) }),
  );

  app.post(
    '/project/:project/run',
    {
      config: write,
      schema: {
        tags: ['runs'],
        summary: 'Create a run (static, static_struct or live)',
        params: ProjectParams,
        body: CreateRunBody,
        response: { 201: IdNumber, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createRun(db, req.actor, req.params.project, req.body)),
  );

  app.post(
    '/project/:project/run/preview',
    {
      schema: {
        tags: ['runs'],
        summary:
          'Which test cases query plans select: the selection run creation uses, without creating a run',
        params: ProjectParams,
        body: RunPreviewBody,
        response: { 200: RunPreviewResponse, ...errorResponses },
      },
    },
    async (req) => previewRunSelection(db, req.actor, req.params.project, req.body),
  );

  app.post(
    '/project/:project/run/clone',
    {
      config: write,
      schema: {
        tags: ['runs'],
        summary: 'Create a run from an existing one; every test case starts open',
        params: ProjectParams,
        body: CloneRunBody,
        response: { 201: IdNumber, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.cloneRun(db, req.actor, req.params.project, req.body)),
  );

  app.get(
    '/project/:project/run/:run',
    {
      schema: {
        tags: ['runs'],
        summary: 'Get one run, shaped as in the list (include chooses its related objects)',
        params: RunParams,
        querystring: GetRunQuery,
        response: { 200: Run, ...errorResponses },
      },
    },
    async (req) => service.getRun(db, req.actor, req.params.project, req.params.run, req.query),
  );

  app.patch(
    '/project/:project/run/:run',
    {
      config: write,
      schema: {
        tags: ['runs'],
        summary:
          "Edit an open run's title, description, assignee or milestone (only the given fields change)",
        params: RunParams,
        body: UpdateRunBody,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => updateRun(db, req.actor, req.params.project, req.params.run, req.body),
  );

  app.get(
    '/project/:project/run/:run/changes',
    {
      schema: {
        tags: ['runs'],
        summary:
          'What changed in a run since a cursor: cases with new results, status counts, the next cursor',
        params: RunParams,
        querystring: RunChangesQuery,
        response: { 200: RunChangesResponse, ...errorResponses },
      },
    },
    async (req) => listRunChanges(db, req.actor, req.params.project, req.params.run, req.query),
  );

  app.post(
    '/project/:project/run/:run/close',
    {
      config: write,
      schema: {
        tags: ['runs'],
        summary: 'Close an open run, freezing its test cases (no body)',
        params: RunParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => service.closeRun(db, req.actor, req.params.project, req.params.run),
  );

  app.post(
    '/project/:project/run/:run/tcase/add',
    {
      config: write,
      schema: {
        tags: ['runs'],
        summary: 'Add test cases to an open static_struct run',
        params: RunParams,
        body: RunTcaseIdsBody,
        response: { 200: RunTcaseCountResponse, ...errorResponses },
      },
    },
    async (req) => service.addRunTcases(db, req.actor, req.params.project, req.params.run, req.body.tcaseIds),
  );

  app.post(
    '/project/:project/run/:run/tcase/remove',
    {
      config: write,
      schema: {
        tags: ['runs'],
        summary: 'Remove test cases from an open static_struct run (their results are kept)',
        params: RunParams,
        body: RunTcaseIdsBody,
        response: { 200: RunTcaseCountResponse, ...errorResponses },
      },
    },
    async (req) =>
      service.removeRunTcases(db, req.actor, req.params.project, req.params.run, req.body.tcaseIds),
  );

  app.get(
    '/project/:project/run/:run/tcase',
    {
      schema: {
        tags: ['runs'],
        summary: 'List the test cases of a run as the run shows them (not paginated)',
        params: RunParams,
        querystring: ListRunTcasesQuery,
        response: { 200: RunTcaseList, ...errorResponses },
      },
    },
    async (req, reply) => {
      const list = await runTcases.listRunTcasesResponse(
        db,
        ctx.runListCache,
        req.actor,
        req.params.project,
        req.params.run,
        req.query,
      );
      if ('tcases' in list) return list;
      // JSON the database built (same shape as RunTcaseList).
      return sendJsonBody(reply, list.json);
    },
  );

  app.get(
    '/project/:project/run/:run/tcase/:tcase',
    {
      schema: {
        tags: ['runs'],
        summary: 'Get one test case of a run by id, sequence number or legacy id, with its results',
        params: RunTcaseParams,
        response: { 200: RunTcaseDetail, ...errorResponses },
      },
    },
    async (req) =>
      runTcases.getRunTcase(db, ctx.files, req.actor, req.params.project, req.params.run, req.params.tcase),
  );
};
