import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { drainBody } from '../../../http/drain-body.js';
import { errorResponses } from '../../../http/schemas.js';
import { importParts, multipartError, skipBodyValidation } from '../imports.routes.js';
import { tooLarge } from '../imports.upload.js';
import {
  ProjectImportBody,
  ProjectImportParams,
  ProjectImportStarted,
  ProjectImportStatus,
} from './archive.schemas.js';
import { getProjectImport, startProjectImport } from './archive.service.js';

/* POST /import/project and GET /import/{id} (extensions.md §7): a whole project from a Casebook archive. */
export const archiveRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, ctx } = app;
  const max = config.importMaxBytes;
  await app.register(multipart, {
    throwFileSizeLimit: false,
    limits: { fileSize: max + 1, files: 1, fields: 2, parts: 3, fieldSize: 1024 },
  });
  const tags = ['imports'];

  app.post(
    '/import/project',
    {
      config: { access: { minRole: 'admin' } },
      validatorCompiler: skipBodyValidation,
      schema: {
        tags,
        summary: 'Create a project from a Casebook archive, as a background job (202 with its id); admins',
        description: `Archives up to ${max} bytes (413 beyond, nothing kept). 409 when the code is taken.`,
        consumes: ['multipart/form-data'],
        body: ProjectImportBody,
        response: { 202: ProjectImportStarted, ...errorResponses },
      },
    },
    async (req, reply) => {
      const length = Number(req.headers['content-length'] ?? 0);
      const fail = async (err: unknown): Promise<never> => {
        await drainBody(req, reply, max + 1024 * 1024);
        throw multipartError(err);
      };
      if (length > max + 1024 * 1024) return fail(tooLarge(max));
      const started = await startProjectImport(db, ctx.files, req.actor, importParts(req), max).catch(fail);
      return reply.code(202).send(started);
    },
  );

  app.get(
    '/import/:id',
    {
      config: { access: { minRole: 'admin' } },
      schema: {
        tags,
        summary:
          'Where a project import is: status, records written of total, the new project or the failure',
        params: ProjectImportParams,
        response: { 200: ProjectImportStatus, ...errorResponses },
      },
    },
    async (req) => getProjectImport(db, req.actor, req.params.id),
  );
};
