import { Type, type Static } from 'typebox';

/** POST /import/project: a multipart body, read part by part in the service; documented here. */
export const ProjectImportBody = Type.Object({
  file: Type.String({
    format: 'binary',
    description: 'a Casebook archive (GET /project/{p}/export?format=casebook)',
  }),
  code: Type.Optional(
    Type.String({ description: "the new project's code (2-5 letters or digits); the archive's when absent" }),
  ),
});

export const ProjectImportStarted = Type.Object({ id: Type.Integer() });

export const ProjectImportParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export const ProjectImportStatus = Type.Object({
  id: Type.Integer(),
  status: Type.Enum(['queued', 'running', 'done', 'failed']),
  code: Type.String({ description: 'the code the project is created with' }),
  progress: Type.Object({
    done: Type.Integer({ description: 'records of the archive written' }),
    total: Type.Integer({ description: 'records of the archive, known once it has been checked; 0 before' }),
  }),
  project: Type.Optional(
    Type.Object({ id: Type.String(), code: Type.String() }, { description: 'the new project, once done' }),
  ),
  error: Type.Optional(Type.String({ description: 'why it failed (nothing was kept)' })),
  createdAt: Type.String(),
  finishedAt: Type.Optional(Type.String()),
});
export type ProjectImportStatus = Static<typeof ProjectImportStatus>;

export const ArchiveDownload = {
  description: 'the project as a Casebook archive (gzip-compressed NDJSON, docs/archive-format.md), streamed',
  content: { 'application/gzip': { schema: Type.String({ format: 'binary' }) } },
};
