import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { AppError, badRequest } from '../../../errors.js';
import { IdempotencyHeaders } from '../../../http/idempotency.js';
import { errorResponses } from '../../../http/schemas.js';
import { validatorCompiler } from '../../../http/validation.js';
import { findStoredAnswer, idempotencyClaim } from '../../idempotency/idempotency.service.js';
import { RunParams } from '../runs.schemas.js';
import { JUnitBody, JUnitQuery, JUnitResponse } from './junit.schemas.js';
import * as service from './junit.service.js';

/** The XML body is read by the JUnit parser; the body schema only documents it. */
const skipBodyValidation: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route);

export const junitRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, ctx } = app;
  const limit = config.bodyLimit;
  // Scoped to this plugin: the rest of the API stays JSON-only (D8). The body limit of JSON bodies applies to
  // both forms: Fastify's to an XML body, multipart's file size limit to the part.
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'buffer' }, (_req, body, done) =>
    done(null, body),
  );
  await app.register(multipart, { limits: { fileSize: limit, files: 1, fields: 10, parts: 11 } });

  /** The report's text, whichever way it came; 400 when a multipart body has no part "file". */
  async function reportText(req: FastifyRequest): Promise<string> {
    if (Buffer.isBuffer(req.body)) return req.body.toString('utf8');
    if (!req.isMultipart()) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        'send the JUnit XML as application/xml or text/xml, or as multipart/form-data with the part "file"',
      );
    }
    try {
      for await (const part of req.parts()) {
        if (part.type === 'file' && part.fieldname === 'file')
          return (await part.toBuffer()).toString('utf8');
        if (part.type === 'file') await part.toBuffer();
      }
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'FST_REQ_FILE_TOO_LARGE') {
        throw new AppError('PAYLOAD_TOO_LARGE', `the file is larger than the limit of ${limit} bytes`);
      }
      if (err instanceof AppError) throw err;
      throw badRequest(`malformed multipart body: ${(err as Error).message}`);
    }
    throw badRequest('the multipart body has no part "file" holding the JUnit XML');
  }

  app.post(
    '/project/:project/run/:run/junit',
    {
      config: { access: { minRole: 'test-runner' } },
      validatorCompiler: skipBodyValidation,
      schema: {
        tags: ['results'],
        summary:
          'Record a JUnit XML report in a run, matching test cases by markers (PRJ-123) as the uploader does',
        description: `Up to ${limit} bytes. Written in chunks of at most 5,000 results, each all or none (D11).`,
        params: RunParams,
        querystring: JUnitQuery,
        headers: IdempotencyHeaders,
        consumes: ['application/xml', 'text/xml', 'multipart/form-data'],
        body: JUnitBody,
        response: { 201: JUnitResponse, ...errorResponses },
      },
    },
    async (req, reply) => {
      const xml = (await reportText(req)).replace(/^\uFEFF/, '');
      const createTcases = req.query.createTcases ?? false;
      const header = req.headers['idempotency-key'];
      // The key covers the file and the options, so the same key with another file is a 409, not a replay.
      const claim =
        header === undefined
          ? undefined
          : idempotencyClaim(
              req.actor,
              req.method,
              req.url.split('?')[0],
              Array.isArray(header) ? header.join(',') : header,
              { xml, createTcases },
            );
      const stored = claim && (await findStoredAnswer(db, claim));
      if (stored)
        return reply
          .code(201)
          .header('idempotent-replayed', 'true')
          .send(stored.body as service.JUnitAnswer);
      const answer = await service.recordJUnit(db, req.actor, req.params.project, req.params.run, xml, {
        createTcases,
        claim,
        tcasesChanged: ctx.tcasesChanged,
        parsers: ctx.parsers,
      });
      ctx.metrics.resultsRecorded.inc(answer.results);
      return reply.code(201).send(answer);
    },
  );
};
