import { Type, type Static } from 'typebox';

export const UploadedFile = Type.Object({
  id: Type.String(),
  url: Type.String({ description: 'absolute; GET it with the same credentials to download the file' }),
});
export type UploadedFile = Static<typeof UploadedFile>;

export const UploadedFileList = Type.Object({ files: Type.Array(UploadedFile) });

/** docs/api-decisions.md#shapes: the `files` of a test case. */
export const FileInfo = Type.Object({
  id: Type.String(),
  fileName: Type.String(),
  mimeType: Type.String(),
  size: Type.Integer(),
  url: Type.String(),
});
export type FileInfo = Static<typeof FileInfo>;

/** For the OpenAPI document only: multipart bodies are read part by part, not validated as JSON. */
export const BatchUploadBody = Type.Object({
  files: Type.Array(Type.String({ format: 'binary' }), { description: 'one or more file parts' }),
});
export const SingleUploadBody = Type.Object({ file: Type.String({ format: 'binary' }) });

/** extensions.md §8: `purpose=result` marks the upload pending until a result names it (removed after 24 hours if none does). */
export const UploadQuery = Type.Object({
  purpose: Type.Optional(
    Type.Literal('result', {
      description:
        'result: an attachment for a result, removed when no result names it within 24 hours; left out, the file is never removed by that rule',
    }),
  ),
});
export type UploadQuery = Static<typeof UploadQuery>;

export const FileParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export type FileParams = Static<typeof FileParams>;

export const FileContent = Type.String({ format: 'binary', description: 'the file as uploaded' });
