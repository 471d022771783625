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
}

export interface FilesTables {
  files: FilesTable;
}
