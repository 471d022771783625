import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdNumber, MessageBody, ProjectParams } from '../../http/schemas.js';
import {
  AddedPlanRuns,
  AddPlanRunsBody,
  ClosedPlan,
  CreatePlanBody,
  PlanList,
  PlanParams,
  PlanWithRuns,
  UpdatePlanBody,
} from './plans.schemas.js';
import * as service from './plans.service.js';

export const plansRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.post(
    '/project/:project/plan',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['plans'],
        summary: 'Create a test plan with its runs, in one transaction',
        params: ProjectParams,
        body: CreatePlanBody,
        response: { 201: IdNumber, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createPlan(db, req.actor, req.params.project, req.body)),
  );

  app.get(
    '/project/:project/plan',
    {
      schema: {
        tags: ['plans'],
        summary: 'List the test plans of a project, newest first',
        params: ProjectParams,
        response: { 200: PlanList, ...errorResponses },
      },
    },
    async (req) => ({ plans: await service.listPlans(db, req.actor, req.params.project) }),
  );

  app.get(
    '/project/:project/plan/:plan',
    {
      schema: {
        tags: ['plans'],
        summary: 'Get a test plan with its runs',
        params: PlanParams,
        response: { 200: PlanWithRuns, ...errorResponses },
      },
    },
    async (req) => service.getPlan(db, req.actor, req.params.project, req.params.plan),
  );

  app.patch(
    '/project/:project/plan/:plan',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['plans'],
        summary: "Edit a test plan's title, description or milestone (its runs follow the milestone)",
        params: PlanParams,
        body: UpdatePlanBody,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => service.updatePlan(db, req.actor, req.params.project, req.params.plan, req.body),
  );

  app.post(
    '/project/:project/plan/:plan/run',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['plans'],
        summary: 'Add runs to an open test plan, in one transaction',
        params: PlanParams,
        body: AddPlanRunsBody,
        response: { 201: AddedPlanRuns, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await service.addPlanRuns(db, req.actor, req.params.project, req.params.plan, req.body)),
  );

  app.post(
    '/project/:project/plan/:plan/close',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['plans'],
        summary: 'Close a test plan and its open runs, in one transaction',
        params: PlanParams,
        response: { 200: ClosedPlan, ...errorResponses },
      },
    },
    async (req) => service.closePlan(db, req.actor, req.params.project, req.params.plan),
  );
};
