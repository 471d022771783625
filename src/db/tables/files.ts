import type { ColumnType } from 'kysely';

/** Kysely table types of the uploaded files (migration 0004_files). */

export interface FilesTable {
  /** Random string id (docs/api-decisions.md#response-shapes), never all digits. */
  id: string;
  tenant_id: string;
  /** Where the bytes live in the file store (`FileStorage` key). */
  storage_key: string;
  /** The name the client gave the part, served back in Content-Disposition. */
  file_name: string;
  mime_type: string;
  /** Bytes. */
  size: number;
  /** Hex sha256 of the content. */
  sha256: string;
  /** Null once the uploader is deleted. */
  uploaded_by: number | null;
  created_at: string;
  /** The backend holding the bytes (`local`, `postgres`, `s3`; migration 0025); defaults to `local`. */
  storage: ColumnType<string, string | undefined, string>;
  /**
   * What the upload was for (migration 0046): 'result' (`POST /file?purpose=result`: pending until a result names it,
   * removed when still pending after 24 hours) or null (every other upload, never removed by that rule).
   */
  purpose: ColumnType<string | null, string | null | undefined, string | null>;
}

/** File bodies kept in the database (CASEBOOK_FILE_STORAGE=postgres): 256 KiB chunks per storage key. */
export interface FileChunksTable {
  storage_key: string;
  idx: number;
  data: Buffer;
}

export interface FilesTables {
  files: FilesTable;
  file_chunks: FileChunksTable;
}
