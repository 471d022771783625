import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdString, MessageBody, ProjectParams } from '../../http/schemas.js';
import {
  AddMemberBody,
  CreateProjectBody,
  MemberParams,
  Project,
  ProjectCounts,
  ProjectList,
  ProjectMemberList,
  UpdateProjectBody,
} from './projects.schemas.js';
import * as service from './projects.service.js';

export const projectsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.get(
    '/project',
    {
      schema: {
        tags: ['projects'],
        summary: 'List the projects visible to the caller',
        response: { 200: ProjectList, ...errorResponses },
      },
    },
    async (req) => ({ projects: await service.listProjects(db, req.actor) }),
  );

  app.get(
    '/project/:project',
    {
      schema: {
        tags: ['projects'],
        summary: 'Get a project by code (any case) or id',
        params: ProjectParams,
        response: { 200: Project, ...errorResponses },
      },
    },
    async (req) => service.resolveProject(db, req.actor, req.params.project),
  );

  app.post(
    '/project',
    {
      config: { access: { minRole: 'admin' } },
      schema: {
        tags: ['projects'],
        summary: 'Create a project (admin or owner)',
        body: CreateProjectBody,
        response: { 201: IdString, ...errorResponses },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createProject(db, req.actor, req.body)),
  );

  // ---- administration (archive, delete, members); D3: admin or owner ----
  const admin = { access: { minRole: 'admin' as const } };

  app.patch(
    '/project/:project',
    {
      config: admin,
      schema: {
        tags: ['projects'],
        summary: "Edit a project's title, overview (description is HTML) and links (admin)",
        params: ProjectParams,
        body: UpdateProjectBody,
        response: { 200: Project, ...errorResponses },
      },
    },
    async (req) => service.updateProject(db, req.actor, req.params.project, req.body),
  );

  app.post(
    '/project/:project/archive',
    {
      config: admin,
      schema: {
        tags: ['projects'],
        summary: 'Archive a project: it stays readable, writes to it are refused (admin)',
        params: ProjectParams,
        response: { 200: Project, ...errorResponses },
      },
    },
    async (req) => service.archiveProject(db, req.actor, req.params.project),
  );

  app.post(
    '/project/:project/unarchive',
    {
      config: admin,
      schema: {
        tags: ['projects'],
        summary: 'Unarchive a project (admin)',
        params: ProjectParams,
        response: { 200: Project, ...errorResponses },
      },
    },
    async (req) => service.unarchiveProject(db, req.actor, req.params.project),
  );

  app.delete(
    '/project/:project',
    {
      config: admin,
      schema: {
        tags: ['projects'],
        summary: 'Delete a project and everything in it (admin)',
        params: ProjectParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.deleteProject(db, req.actor, req.params.project);
      return { message: 'Project deleted' };
    },
  );

  app.get(
    '/project/:project/counts',
    {
      config: admin,
      schema: {
        tags: ['projects'],
        summary:
          'Count what the project holds: test cases, runs (and open ones), results, attached files and their bytes (admin)',
        params: ProjectParams,
        response: { 200: ProjectCounts, ...errorResponses },
      },
    },
    async (req) => service.countProjectContents(db, req.actor, req.params.project),
  );

  app.get(
    '/project/:project/member',
    {
      config: admin,
      schema: {
        tags: ['projects'],
        summary: 'List the users granted access to a project (admin)',
        params: ProjectParams,
        response: { 200: ProjectMemberList, ...errorResponses },
      },
    },
    async (req) => ({ members: await service.listMembers(db, req.actor, req.params.project) }),
  );

  app.post(
    '/project/:project/member',
    {
      config: admin,
      schema: {
        tags: ['projects'],
        summary: 'Grant a user access to a project (admin)',
        params: ProjectParams,
        body: AddMemberBody,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.grantAccess(db, req.actor, req.params.project, req.body.userId);
      return { message: 'Access granted' };
    },
  );

  app.delete(
    '/project/:project/member/:userId',
    {
      config: admin,
      schema: {
        tags: ['projects'],
        summary: "Revoke a user's access to a project (admin)",
        params: MemberParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.revokeAccess(db, req.actor, req.params.project, req.params.userId);
      return { message: 'Access revoked' };
    },
  );
};

/** docs/api-decisions.md#endpoints-beyond-the-public-api: the web application's private API (under `/api`); session cookie or API key. */
export const projectsPrivateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;
  app.delete(
    '/project/:project',
    {
      config: { access: { minRole: 'admin' } },
      schema: {
        tags: ['projects'],
        summary: 'Delete a project and everything in it (admin; web application)',
        params: ProjectParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await service.deleteProject(db, req.actor, req.params.project);
      return { message: 'Project deleted' };
    },
  );
};
