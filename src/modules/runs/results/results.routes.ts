import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../../http/schemas.js';
import {
  BatchResultsBody,
  CreateResultBody,
  ResultIdResponse,
  ResultIdsResponse,
} from './results.schemas.js';
import { RunParams, RunTcaseParams } from '../runs.schemas.js';
import * as service from './results.service.js';
import { IdempotencyHeaders, withIdempotency } from '../../../http/idempotency.js';
import { TcaseHistoryParams, TcaseHistoryQuery, TcaseHistoryResponse } from '../history/history.schemas.js';
import { listTcaseResultHistory } from '../history/history.service.js';

export const resultsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, ctx } = app;

  app.post(
    '/project/:project/run/:run/tcase/:tcase/result',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['results'],
        summary: 'Add a result to a test case of a run (by id, sequence number or legacy id)',
        params: RunTcaseParams,
        headers: IdempotencyHeaders,
        body: CreateResultBody,
        response: { 201: ResultIdResponse, ...errorResponses },
      },
    },
    async (req, reply) =>
      withIdempotency(db, req, reply, 201, async (claim) => {
        const out = await service.recordResult(
          db,
          ctx.resultGroupCommit,
          req.actor,
          req.params.project,
          req.params.run,
          req.params.tcase,
          req.body,
          claim,
        );
        ctx.metrics.resultsRecorded.inc();
        return out;
      }),
  );

  app.post(
    '/project/:project/run/:run/result/batch',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['results'],
        summary: 'Add up to 5,000 results to a run in one transaction (all or none)',
        params: RunParams,
        headers: IdempotencyHeaders,
        body: BatchResultsBody,
        response: { 201: ResultIdsResponse, ...errorResponses },
      },
    },
    async (req, reply) =>
      withIdempotency(db, req, reply, 201, async (claim) => {
        const out = await service.recordResultBatch(
          db,
          req.actor,
          req.params.project,
          req.params.run,
          req.body,
          claim,
        );
        ctx.metrics.resultsRecorded.inc(out.ids.length);
        return out;
      }),
  );

  app.get(
    '/project/:project/tcase/:id/results',
    {
      schema: {
        tags: ['results'],
        summary: "A test case's latest result in every run, newest first (paged)",
        params: TcaseHistoryParams,
        querystring: TcaseHistoryQuery,
        response: { 200: TcaseHistoryResponse, ...errorResponses },
      },
    },
    async (req) =>
      listTcaseResultHistory(db, ctx.files, req.actor, req.params.project, req.params.id, req.query),
  );
};
