import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { atLeast } from '../../auth/roles.js';
import { AppError, badRequest, forbidden } from '../../errors.js';
import { resolveProject } from '../projects/projects.service.js';
import { archiveLines } from '../../db/archive/export.js';
import { ArchiveDownload } from './archive/archive.schemas.js';
import { drainBody } from '../../http/drain-body.js';
import { errorResponses } from '../../http/schemas.js';
import { validatorCompiler } from '../../http/validation.js';
import { auditExport, exportQasphereCsv } from './imports.export.js';
import { FORMATS, IMPORT_FORMATS } from './formats/formats.js';
import {
  ExportCsv,
  ExportQuery,
  ImportBody,
  ImportParams,
  ImportStarted,
  ImportStatus,
  ImportStatusQuery,
  ImportPreview,
  PreviewBody,
} from './imports.schemas.js';
import { previewXlsx } from './imports.preview.js';
import { reconciliationCsv, type Reconciliation } from './imports.reconciliation.js';
import { ProjectParams } from '../../http/schemas.js';
import * as service from './imports.service.js';
import { tooLarge, type ImportPart } from './imports.upload.js';

const safeName = (code: string) => code.replace(/[^A-Za-z0-9_-]/g, '_');

/** The multipart body is read part by part in the service; the schema only documents it. */
export const skipBodyValidation: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route);

/** Errors of the multipart body (busboy's, or a file stream cut short) in the house's words. */
export function multipartError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const e = err as { code?: string; message?: string };
  if (e.code === 'FST_PARTS_LIMIT' || e.code === 'FST_FIELDS_LIMIT' || e.code === 'FST_FILES_LIMIT')
    return new AppError('PAYLOAD_TOO_LARGE', 'too many parts in one request: one file and the fields');
  // The file part's stream closed before its end: the body stopped before the closing boundary.
  if (e.code === 'ERR_STREAM_PREMATURE_CLOSE')
    return badRequest('malformed multipart body: it ends before the closing boundary');
  if (e.code === 'FST_PROTO_VIOLATION' || /multipart|part|form|boundary/i.test(e.message ?? ''))
    return badRequest(`malformed multipart body: ${e.message}`);
  return err;
}

/** @fastify/multipart's parts in the service's shape, its errors in the house's words. */
export async function* importParts(req: FastifyRequest): AsyncGenerator<ImportPart> {
  if (!req.isMultipart())
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the import as multipart/form-data with a "file" part');
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') yield { fieldName: part.fieldname, file: part.file };
      else yield { fieldName: part.fieldname, value: String(part.value) };
    }
  } catch (err) {
    throw multipartError(err);
  }
}

export const importsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, ctx } = app;
  const max = config.importMaxBytes;
  // Scoped to this plugin, like files.routes.ts. Busboy stops the file one byte past the limit, so the service
  // sees the overflow and answers 413 without keeping anything.
  await app.register(multipart, {
    throwFileSizeLimit: false,
    limits: { fileSize: max + 1, files: 1, fields: 10, parts: 12, fieldSize: 64 * 1024 },
  });
  const tags = ['imports'];

  app.post(
    '/project/:project/import',
    {
      config: { access: { minRole: 'user' } },
      validatorCompiler: skipBodyValidation,
      schema: {
        tags,
        summary: 'Import test cases from a file, as a background job (202 with its id)',
        description: `Formats ${IMPORT_FORMATS.join(', ')} (${IMPORT_FORMATS.filter((f) => FORMATS[f].mapping).join(' and ')} with a mapping). Files up to ${max} bytes (413 beyond, nothing kept).`,
        params: ProjectParams,
        consumes: ['multipart/form-data'],
        body: ImportBody,
        response: { 202: ImportStarted, ...errorResponses },
      },
    },
    async (req, reply) => {
      // Refused before a byte is stored when the body says it is too large (fields take far less than 1 MiB).
      const length = Number(req.headers['content-length'] ?? 0);
      const fail = async (err: unknown): Promise<never> => {
        await drainBody(req, reply, max + 1024 * 1024);
        throw multipartError(err);
      };
      if (length > max + 1024 * 1024) return fail(tooLarge(max));
      const started = await service
        .startImport(db, ctx.files, req.actor, req.params.project, importParts(req), max)
        .catch(fail);
      return reply.code(202).send(started);
    },
  );

  app.post(
    '/project/:project/import/preview',
    {
      config: { access: { minRole: 'user' } },
      validatorCompiler: skipBodyValidation,
      schema: {
        tags,
        summary:
          "The header and first rows of an .xlsx file, as an import would read them (the mapping's preview)",
        description: `Nothing is kept. Files up to ${max} bytes (413 beyond); a file that is no workbook, or a zip bomb, is a 400.`,
        params: ProjectParams,
        consumes: ['multipart/form-data'],
        body: PreviewBody,
        response: { 200: ImportPreview, ...errorResponses },
      },
    },
    async (req, reply) => {
      const length = Number(req.headers['content-length'] ?? 0);
      const fail = async (err: unknown): Promise<never> => {
        await drainBody(req, reply, max + 1024 * 1024);
        throw multipartError(err);
      };
      if (length > max + 1024 * 1024) return fail(tooLarge(max));
      return previewXlsx(db, req.actor, req.params.project, importParts(req), max, ctx.parsers).catch(fail);
    },
  );

  app.get(
    '/project/:project/import/:id',
    {
      schema: {
        tags,
        summary:
          'Where an import is: status, rows done of total, counts, the bad rows, warnings and the reconciliation (?format=csv: the reconciliation as CSV)',
        params: ImportParams,
        querystring: ImportStatusQuery,
        produces: ['application/json', 'text/csv'],
        response: {
          200: {
            description: 'where the import is; text/csv with ?format=csv',
            content: {
              'application/json': { schema: ImportStatus },
              'text/csv': { schema: Type.String({ description: 'kind,inFile,created,updated,leftOut' }) },
            },
          },
          ...errorResponses,
        },
      },
    },
    async (req, reply) => {
      const status = await service.getImport(db, req.actor, req.params.project, req.params.id);
      if (req.query.format !== 'csv') return status;
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="import-${status.id}-reconciliation.csv"`)
        .send(reconciliationCsv(status.reconciliation as Reconciliation));
    },
  );

  app.get(
    '/project/:project/export',
    {
      schema: {
        tags,
        summary:
          "Export the project's test cases as QA Sphere CSV, or (admins) the whole project as a Casebook archive; streamed",
        params: ProjectParams,
        querystring: ExportQuery,
        produces: ['text/csv', 'application/gzip'],
        response: {
          200: {
            description: `${ExportCsv.description}; or ${ArchiveDownload.description}`,
            content: { ...ExportCsv.content, ...ArchiveDownload.content },
          },
          ...errorResponses,
        },
      },
    },
    async (req, reply) => {
      if (req.query.format === 'casebook') {
        // The whole project, people and files included: for admins only (extensions.md §7).
        if (!atLeast(req.actor.role, 'admin'))
          throw forbidden('exporting a whole project as an archive needs the role admin or higher');
        const project = await resolveProject(db, req.actor, req.params.project);
        await auditExport(db, req.actor, project, 'casebook');
        const lines = archiveLines({
          db,
          tenantId: req.actor.tenantId,
          projectId: project.id,
          readFile: (storage, key) => ctx.files.storages.of(storage).get(key),
        });
        return reply
          .header('content-type', 'application/gzip')
          .header('content-disposition', `attachment; filename="${safeName(project.code)}.casebook"`)
          .send(Readable.from(lines).pipe(createGzip()) as never);
      }
      const { code, chunks } = await exportQasphereCsv(db, req.actor, req.params.project, ctx.files, {
        raw: req.query.raw,
      });
      return (
        reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${safeName(code)}-test-cases.csv"`)
          // A stream skips serialisation; the schema above only documents the text.
          .send(Readable.from(chunks) as never)
      );
    },
  );
};
