import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdNumber, MessageBody, ProjectParams } from '../../http/schemas.js';
import {
  CreateMilestoneBody,
  Milestone,
  MilestoneList,
  MilestoneListQuery,
  MilestoneParams,
  UpdateMilestoneBody,
} from './milestones.schemas.js';
import * as service from './milestones.service.js';

export const milestonesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.get(
    '/project/:project/milestone',
    {
      schema: {
        tags: ['milestones'],
        summary: 'List the milestones of a project',
        params: ProjectParams,
        querystring: MilestoneListQuery,
        response: { 200: MilestoneList, ...errorResponses },
      },
    },
    async (req) => ({
      milestones: await service.listMilestones(db, req.actor, req.params.project, req.query.archived),
    }),
  );

  app.post(
    '/project/:project/milestone',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['milestones'],
        summary: 'Create a milestone',
        params: ProjectParams,
        body: CreateMilestoneBody,
        response: { 201: IdNumber, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createMilestone(db, req.actor, req.params.project, req.body)),
  );

  app.get(
    '/project/:project/milestone/:milestone',
    {
      schema: {
        tags: ['milestones'],
        summary: 'Get a milestone',
        params: MilestoneParams,
        response: { 200: Milestone, ...errorResponses },
      },
    },
    async (req) => service.readMilestone(db, req.actor, req.params.project, req.params.milestone),
  );

  app.patch(
    '/project/:project/milestone/:milestone',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['milestones'],
        summary: 'Edit a milestone: title, description, due date',
        params: MilestoneParams,
        body: UpdateMilestoneBody,
        response: { 200: Milestone, ...errorResponses },
      },
    },
    async (req) => service.updateMilestone(db, req.actor, req.params.project, req.params.milestone, req.body),
  );

  app.post(
    '/project/:project/milestone/:milestone/archive',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['milestones'],
        summary: 'Archive a milestone',
        params: MilestoneParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => service.archiveMilestone(db, req.actor, req.params.project, req.params.milestone),
  );

  app.post(
    '/project/:project/milestone/:milestone/unarchive',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['milestones'],
        summary: 'Unarchive a milestone',
        params: MilestoneParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => service.unarchiveMilestone(db, req.actor, req.params.project, req.params.milestone),
  );
};
