import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, ProjectParams } from '../../http/schemas.js';
import {
  BulkFoldersBody,
  BulkFoldersResponse,
  Folder,
  FolderList,
  FolderListQuery,
  FolderParams,
  UpdateFolderBody,
} from './folders.schemas.js';
import * as service from './folders.service.js';

export const foldersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.get(
    '/project/:project/tcase/folders',
    {
      schema: {
        tags: ['folders'],
        summary: 'List the folders of a project (whole tree depth-first unless paginated)',
        params: ProjectParams,
        querystring: FolderListQuery,
        response: { 200: FolderList, ...errorResponses },
      },
    },
    async (req) => service.listFolders(db, req.actor, req.params.project, req.query),
  );

  app.post(
    '/project/:project/tcase/folder/bulk',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['folders'],
        summary: 'Create or update folders by path',
        params: ProjectParams,
        body: BulkFoldersBody,
        response: { 200: BulkFoldersResponse, ...errorResponses },
      },
    },
    async (req) => service.bulkUpsertFolders(db, req.actor, req.params.project, req.body),
  );

  // docs/api-decisions.md#folder-edits: the same role as creating folders (folder/bulk).
  app.patch(
    '/project/:project/tcase/folder/:folderId',
    {
      config: { access: { minRole: 'test-runner' } },
      schema: {
        tags: ['folders'],
        summary:
          'Rename, move (parentId; 0 = root) or reorder (pos among siblings) a folder, or change its comment',
        params: FolderParams,
        body: UpdateFolderBody,
        response: { 200: Folder, ...errorResponses },
      },
    },
    async (req) => service.updateFolder(db, req.actor, req.params.project, req.params.folderId, req.body),
  );
};
