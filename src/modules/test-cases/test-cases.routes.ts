import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, MessageBody, ProjectParams } from '../../http/schemas.js';
import {
  BulkDeleteBody,
  BulkMoveBody,
  BulkResult,
  BulkTagsBody,
  BulkCreateBody,
  BulkCreateResponse,
  CountResponse,
  CreatedTcase,
  CreateTcaseBody,
  SeqLookupBody,
  TCase,
  TCaseList,
  TcaseCountQuery,
  TcaseListQuery,
  TcaseParams,
  TcaseVersionList,
  TcaseVersionParams,
  UpdateTcaseBody,
} from './test-cases.schemas.js';
import { DeletedFolder, DeleteFolderQuery, FolderParams } from '../folders/folders.schemas.js';
import { deleteFolder } from './folder-delete/folder-delete.service.js';
import * as service from './test-cases.service.js';

/*
 * What is where in test-cases/. At the root: test-cases.service.ts (create, update with If-Match, delete; the face
 * other modules use, re-exporting the parts), .schemas, .repository (the `tcases` table) and .common (what the parts
 * share: limits, the validation error, transactions, the project's write lock). One folder per part: listing/ (list,
 * count, get, seq lookup, version list), versions/ (D15: a write made into a new version and stored), content/
 * (a version's content: its stored shape and rules, write input and references, rows into API objects, steps,
 * preconditions and link rows), templates/ (filled cases), bulk/ (move, tag, delete many), lookups/ (what runs ask
 * of test cases), folder-delete/ (deleting a folder deletes its cases).
 */
const tags = ['test cases'];
const write = { access: { minRole: 'test-runner' as const } };

const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({ description: 'optional version precondition: the ETag of a GET, like "3"' }),
  ),
});

// Static paths (count, seq, bulk; folders and folder/bulk belong to the folders module) are matched
// before `/tcase/:id` by the router, so they never read as a test-case id.
export const testCasesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, ctx } = app;

  app.get(
    '/project/:project/tcase',
    {
      schema: {
        tags,
        summary: 'List test cases with filters, sorting, include and the pagination envelope',
        params: ProjectParams,
        querystring: TcaseListQuery,
        response: { 200: TCaseList, ...errorResponses },
      },
    },
    async (req) => service.listTestCases(db, ctx.files, req.actor, req.params.project, req.query),
  );

  app.get(
    '/project/:project/tcase/count',
    {
      schema: {
        tags,
        summary: 'Count test cases',
        params: ProjectParams,
        querystring: TcaseCountQuery,
        response: { 200: CountResponse, ...errorResponses },
      },
    },
    async (req) => service.countTestCases(db, req.actor, req.params.project, req.query),
  );

  app.post(
    '/project/:project/tcase/seq',
    {
      schema: {
        tags,
        summary: 'Look test cases up by markers like PRJ-007',
        params: ProjectParams,
        body: SeqLookupBody,
        response: { 200: TCaseList, ...errorResponses },
      },
    },
    async (req) => service.findTestCasesBySeq(db, ctx.files, req.actor, req.params.project, req.body),
  );

  app.post(
    '/project/:project/tcase/bulk',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create standalone test cases in a folder path (created as needed)',
        params: ProjectParams,
        body: BulkCreateBody,
        response: { 201: BulkCreateResponse, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          await service.bulkCreateTestCases(db, req.actor, req.params.project, req.body, ctx.tcasesChanged),
        ),
  );

  // ---- bulk operations of the repository page (docs/api-decisions.md#bulk-test-case-operations) ----
  app.post(
    '/project/:project/tcase/bulk/move',
    {
      config: write,
      schema: {
        tags,
        summary: 'Move many test cases to one folder (one transaction)',
        params: ProjectParams,
        body: BulkMoveBody,
        response: { 200: BulkResult, ...errorResponses },
      },
    },
    async (req) => service.bulkMoveTestCases(db, req.actor, req.params.project, req.body, ctx.tcasesChanged),
  );

  app.post(
    '/project/:project/tcase/bulk/tags',
    {
      config: write,
      schema: {
        tags,
        summary: 'Add and remove tags on many test cases (a new version for each changed case)',
        params: ProjectParams,
        body: BulkTagsBody,
        response: { 200: BulkResult, ...errorResponses },
      },
    },
    async (req) => service.bulkTagTestCases(db, req.actor, req.params.project, req.body, ctx.tcasesChanged),
  );

  app.post(
    '/project/:project/tcase/bulk/delete',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete many test cases (soft: run results keep them)',
        params: ProjectParams,
        body: BulkDeleteBody,
        response: { 200: BulkResult, ...errorResponses },
      },
    },
    async (req) =>
      service.bulkDeleteTestCases(db, req.actor, req.params.project, req.body, ctx.tcasesChanged),
  );

  app.post(
    '/project/:project/tcase',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create a standalone or template test case',
        params: ProjectParams,
        body: CreateTcaseBody,
        response: { 201: CreatedTcase, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await service.createTestCase(db, req.actor, req.params.project, req.body, ctx.tcasesChanged)),
  );

  app.get(
    '/project/:project/tcase/:id',
    {
      schema: {
        tags,
        summary: 'Get a test case by id, seq (maybe zero-padded) or legacy id',
        params: TcaseParams,
        querystring: Type.Object({
          include: Type.Optional(Type.Array(Type.String(), { description: 'folder, path, project' })),
        }),
        response: { 200: TCase, ...errorResponses },
      },
    },
    async (req, reply) => {
      const tcase = await service.getTestCase(
        db,
        ctx.files,
        req.actor,
        req.params.project,
        req.params.id,
        req.query.include,
      );
      // The version a later PATCH can name in If-Match (docs/api-decisions.md#test-case-version-precondition).
      void reply.header('etag', `"${tcase.version}"`);
      return tcase;
    },
  );

  app.get(
    '/project/:project/tcase/:id/version/:version',
    {
      schema: {
        tags,
        summary: 'Get one version of a test case (D15)',
        params: TcaseVersionParams,
        response: { 200: TCase, ...errorResponses },
      },
    },
    async (req) =>
      service.getTestCaseVersion(
        db,
        ctx.files,
        req.actor,
        req.params.project,
        req.params.id,
        req.params.version,
      ),
  );

  app.get(
    '/project/:project/tcase/:id/versions',
    {
      schema: {
        tags,
        summary: "List a test case's versions with their authors and times, newest first",
        params: TcaseParams,
        response: { 200: TcaseVersionList, ...errorResponses },
      },
    },
    async (req) => service.listTestCaseVersions(db, req.actor, req.params.project, req.params.id),
  );

  app.patch(
    '/project/:project/tcase/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Update a test case; versioned changes make a new version',
        description:
          'With `If-Match: "<version>"` (the ETag of a GET) the update happens only while the case is at that ' +
          'version; otherwise 409 naming the current version. Without the header it always happens.',
        params: TcaseParams,
        headers: IfMatchHeaders,
        body: UpdateTcaseBody,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) =>
      service.updateTestCase(db, req.actor, req.params.project, req.params.id, req.body, ctx.tcasesChanged, {
        ifVersion: service.parseIfMatch(req.headers['if-match']),
      }),
  );

  app.delete(
    '/project/:project/tcase/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete a test case (soft: run results keep it)',
        params: TcaseParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) =>
      service.deleteTestCase(db, req.actor, req.params.project, req.params.id, ctx.tcasesChanged),
  );

  app.delete(
    '/project/:project/tcase/folder/:folderId',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['folders'],
        summary:
          'Delete a folder; one holding subfolders or test cases needs recursive=true (its cases are soft-deleted)',
        params: FolderParams,
        querystring: DeleteFolderQuery,
        response: { 200: DeletedFolder, ...errorResponses },
      },
    },
    async (req) =>
      deleteFolder(
        db,
        req.actor,
        req.params.project,
        req.params.folderId,
        req.query.recursive ?? false,
        ctx.tcasesChanged,
      ),
  );
};
