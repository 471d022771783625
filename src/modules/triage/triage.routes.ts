import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, ProjectParams } from '../../http/schemas.js';
import {
  FailureGroupDetail,
  GroupPageQuery,
  GroupParams,
  LinkGroupAnswer,
  LinkResultAnswer,
  LinkGroupBody,
  MarkKnownAnswer,
  MarkKnownBody,
  ProjectFailureGroupPage,
  ResultParams,
  ResultSuggestions,
  RunFailureGroups,
  RunFailureParams,
  RunGroupParams,
} from './triage.schemas.js';
import * as service from './triage.service.js';

/** Failure triage (docs/api-decisions.md#failure-triage): reads for every member, writes for test runners and up. */
export const triageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;
  const tags = ['triage'];
  const write = { access: { minRole: 'test-runner' as const } };

  app.get(
    '/project/:project/run/:run/failure-group',
    {
      schema: {
        tags,
        summary: "A run's failures grouped by signature, with whether each is new since the comparable run",
        params: RunFailureParams,
        response: { 200: RunFailureGroups, ...errorResponses },
      },
    },
    async (req) => service.runFailureGroups(db, req.actor, req.params.project, req.params.run),
  );

  app.get(
    '/project/:project/failure-group',
    {
      schema: {
        tags,
        summary:
          "A project's failure groups across its runs (first and last seen, runs and cases affected), paged",
        params: ProjectParams,
        querystring: GroupPageQuery,
        response: { 200: ProjectFailureGroupPage, ...errorResponses },
      },
    },
    async (req) => service.projectFailureGroups(db, req.actor, req.params.project, req.query),
  );

  app.get(
    '/project/:project/failure-group/:signature',
    {
      schema: {
        tags,
        summary: 'One failure group of a project: the runs it was seen in and the cases it was seen on',
        params: GroupParams,
        response: { 200: FailureGroupDetail, ...errorResponses },
      },
    },
    async (req) => service.failureGroup(db, req.actor, req.params.project, req.params.signature),
  );

  app.get(
    '/project/:project/result/:result/suggestions',
    {
      schema: {
        tags,
        summary:
          'Defects linked before to failures with the same signature as this result, with the evidence',
        params: ResultParams,
        response: { 200: ResultSuggestions, ...errorResponses },
      },
    },
    async (req) => service.resultSuggestions(db, req.actor, req.params.project, req.params.result),
  );

  app.post(
    '/project/:project/result/:result/link',
    {
      config: write,
      schema: {
        tags,
        summary:
          'Link one defect to one recorded result, as a person does when accepting a suggestion (the run keeps its other results as they are)',
        params: ResultParams,
        body: LinkGroupBody,
        response: { 200: LinkResultAnswer, ...errorResponses },
      },
    },
    async (req) => service.linkDefectToResult(db, req.actor, req.params.project, req.params.result, req.body),
  );

  app.post(
    '/project/:project/run/:run/failure-group/:signature/link',
    {
      config: write,
      schema: {
        tags,
        summary: "Link one defect to the latest failing result of every case in a run's failure group",
        params: RunGroupParams,
        body: LinkGroupBody,
        response: { 200: LinkGroupAnswer, ...errorResponses },
      },
    },
    async (req) =>
      service.linkDefectToGroup(
        db,
        req.actor,
        req.params.project,
        req.params.run,
        req.params.signature,
        req.body,
      ),
  );

  app.post(
    '/project/:project/run/:run/failure-group/:signature/known',
    {
      config: write,
      // The body is optional: clients send none, with a JSON content type (docs/api-decisions.md#wire-rules).
      preValidation: async (req) => {
        req.body ??= {};
      },
      schema: {
        tags,
        summary: "Mark a run's failure group as a known problem of the project",
        params: RunGroupParams,
        body: MarkKnownBody,
        response: { 200: MarkKnownAnswer, ...errorResponses },
      },
    },
    async (req) =>
      service.markGroupKnown(
        db,
        req.actor,
        req.params.project,
        req.params.run,
        req.params.signature,
        req.body ?? {},
      ),
  );

  app.delete(
    '/project/:project/failure-group/:signature/known',
    {
      config: write,
      schema: {
        tags,
        summary: 'Take back the known mark of a failure group',
        params: GroupParams,
        response: { 204: Type.Null({ description: 'taken back' }), ...errorResponses },
      },
    },
    async (req, reply) => {
      await service.unmarkKnown(db, req.actor, req.params.project, req.params.signature);
      return reply.code(204).send(null);
    },
  );
};
