import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { AppError, badRequest } from '../../errors.js';
import { errorResponses } from '../../http/schemas.js';
import { validatorCompiler } from '../../http/validation.js';
import { drainBody } from '../../http/drain-body.js';
import {
  BatchUploadBody,
  FileContent,
  FileParams,
  SingleUploadBody,
  UploadQuery,
  UploadedFile,
  UploadedFileList,
} from './files.schemas.js';
import * as service from './files.service.js';

/** Multipart bodies are read part by part in the service; the body schema only documents them. */
const skipBodyValidation: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route);

/** RFC 6266 / 5987: an ASCII fallback plus the exact UTF-8 name. */
function contentDisposition(kind: 'inline' | 'attachment', fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Busboy's and @fastify/multipart's errors, as D7 errors with a message a client can act on. */
function translateMultipartError(err: unknown, limits: service.UploadLimits): unknown {
  if (err instanceof AppError) return err;
  const e = err as { code?: string; message?: string };
  if (e.code === 'FST_FILES_LIMIT')
    return new AppError('PAYLOAD_TOO_LARGE', `at most ${limits.maxFiles} files per request`);
  if (e.code === 'FST_PARTS_LIMIT' || e.code === 'FST_FIELDS_LIMIT')
    return new AppError('PAYLOAD_TOO_LARGE', 'too many parts in one request');
  if (e.code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') return notMultipart();
  // The file part's stream closed before its end: the body stopped before the closing boundary.
  if (e.code === 'ERR_STREAM_PREMATURE_CLOSE') {
    return new AppError('VALIDATION_FAILED', 'malformed multipart body: it ends before the closing boundary');
  }
  if (e.code === 'FST_PROTO_VIOLATION' || /multipart|part|form|boundary/i.test(e.message ?? '')) {
    return badRequest(`malformed multipart body: ${e.message}`);
  }
  return err;
}

const notMultipart = () => new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the files as multipart/form-data');

/** Adapts @fastify/multipart's parts to the service's neutral shape, translating its errors. */
async function* incomingParts(
  req: FastifyRequest,
  limits: service.UploadLimits,
): AsyncGenerator<service.IncomingPart> {
  if (!req.isMultipart()) throw notMultipart();
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        yield {
          fieldName: part.fieldname,
          file: { fileName: part.filename, mimeType: part.mimetype, stream: part.file },
        };
      } else {
        yield { fieldName: part.fieldname };
      }
    }
  } catch (err) {
    throw translateMultipartError(err, limits);
  }
}

export const filesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, ctx } = app;
  const limits: service.UploadLimits = {
    maxFileBytes: config.uploadMaxFileBytes,
    maxFiles: config.uploadMaxFiles,
    maxRequestBytes: config.uploadMaxRequestBytes,
  };
  // Scoped to this plugin (encapsulation): JSON routes elsewhere never see a multipart parser. The JSON
  // bodyLimit does not apply to multipart bodies; the limits below and in the service do. Busboy stops a
  // file one byte past the limit so that the service sees the overflow and answers 413.
  await app.register(multipart, {
    throwFileSizeLimit: false,
    limits: {
      fileSize: limits.maxFileBytes + 1,
      files: limits.maxFiles,
      fields: 20,
      parts: limits.maxFiles + 20,
      fieldSize: 64 * 1024,
    },
  });

  /**
   * A file part's stream fails while the service reads it when the body ends early (no closing
   * boundary): busboy's error surfaces there, outside incomingParts, and is translated here too.
   */
  const upload = (
    req: FastifyRequest,
    reply: FastifyReply,
    options: Parameters<typeof service.uploadFiles>[4],
  ) =>
    service
      .uploadFiles(db, ctx.files, req.actor, incomingParts(req, limits), options)
      .catch(async (err: unknown) => {
        await drainBody(req, reply, limits.maxRequestBytes);
        throw translateMultipartError(err, limits);
      });

  app.post(
    '/file/batch',
    {
      config: { access: { minRole: 'test-runner' } },
      validatorCompiler: skipBodyValidation,
      schema: {
        tags: ['files'],
        summary: 'Upload one or more files (multipart parts named "files")',
        description: `Limits: ${limits.maxFileBytes} bytes a file, ${limits.maxFiles} files and ${limits.maxRequestBytes} bytes a request (413 beyond).`,
        consumes: ['multipart/form-data'],
        querystring: UploadQuery,
        body: BatchUploadBody,
        response: { 201: UploadedFileList, ...errorResponses },
      },
    },
    async (req, reply) => {
      const files = await upload(req, reply, {
        field: 'files',
        single: false,
        limits,
        purpose: req.query.purpose,
      });
      return reply.code(201).send({ files });
    },
  );

  app.post(
    '/file',
    {
      config: { access: { minRole: 'test-runner' } },
      validatorCompiler: skipBodyValidation,
      schema: {
        tags: ['files'],
        summary: 'Upload one file (a multipart part named "file")',
        consumes: ['multipart/form-data'],
        querystring: UploadQuery,
        body: SingleUploadBody,
        response: { 201: UploadedFile, ...errorResponses },
      },
    },
    async (req, reply) => {
      const [file] = await upload(req, reply, {
        field: 'file',
        single: true,
        limits,
        purpose: req.query.purpose,
      });
      return reply.code(201).send(file);
    },
  );

  app.get(
    '/file/:id',
    {
      schema: {
        tags: ['files'],
        summary: 'Download a file (anyone authenticated in the tenant)',
        params: FileParams,
        produces: ['application/octet-stream'],
        response: { 200: FileContent, ...errorResponses },
      },
    },
    async (req, reply) => {
      const { file, stream } = await service.openFile(db, ctx.files, req.actor.tenantId, req.params.id);
      // Never the declared type as such: a "JavaScript" upload must not load as a script of this origin.
      const served = service.servedAs(file.mimeType);
      return (
        reply
          .header('content-type', served.contentType)
          .header('content-length', String(file.size))
          .header('content-disposition', contentDisposition(served.disposition, file.fileName))
          // Without it a browser could sniff opaque bytes into HTML or script.
          .header('x-content-type-options', 'nosniff')
          // An uploaded HTML or SVG file must not run as a page of this origin.
          .header('content-security-policy', "default-src 'none'; sandbox")
          .header('cache-control', 'private, max-age=31536000, immutable')
          .header('etag', `"${file.sha256}"`)
          // A stream skips serialisation; the schema above only documents the binary body.
          .send(stream as never)
      );
    },
  );
};
