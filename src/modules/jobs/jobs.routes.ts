import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, MessageBody } from '../../http/schemas.js';
import { JobList, JobListQuery, JobParams, RetryAllAnswer, RetryAllQuery } from './jobs.schemas.js';
import * as service from './jobs.service.js';

export const jobsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;
  // D3: background work of the whole tenant (webhook deliveries, tracker comments) is an admin's to watch.
  const admin = { access: { minRole: 'admin' as const } };
  const tags = ['jobs'];

  app.get(
    '/job',
    {
      config: admin,
      schema: {
        tags,
        summary: 'List background jobs, newest first (admin): status=failed shows the ones that gave up',
        querystring: JobListQuery,
        response: { 200: JobList, ...errorResponses },
      },
    },
    async (req) => ({ jobs: await service.listJobs(db, req.actor, req.query) }),
  );

  app.post(
    '/job/:jobId/retry',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Run a failed job again, every attempt anew (admin); 409 when it is not failed',
        params: JobParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => service.retryJob(db, req.actor, req.params.jobId),
  );
  app.post(
    '/job/retry',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Run every failed job again (admin), or those of one kind; answers how many',
        querystring: RetryAllQuery,
        response: { 200: RetryAllAnswer, ...errorResponses },
      },
    },
    async (req) => service.retryAllJobs(db, req.actor, req.query.kind),
  );
};
