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

export const FileParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export type FileParams = Static<typeof FileParams>;

export const FileContent = Type.String({ format: 'binary', description: 'the file as uploaded' });
