import type { Db } from '../../db/create-db.js';
import { FOLDER_NAME_MAX, upsertFolderPaths } from '../folders/folders.service.js';
import { markdownToHtml } from './formats/markdown.js';
import type { ImportedFolder, RowError } from './formats/types.js';

/*
 * Rows that name only a folder (QA Sphere's CSV library writes one for an empty folder and for a folder's comment):
 * the folder is created as the cases' folders are, under the folder imported under, and its comment set; a row
 * without a comment leaves an existing folder's comment as it is.
 */

export interface PreparedFolder {
  row: number;
  folderPath: string[];
  /** HTML; absent keeps the comment. */
  comment?: string;
}

/** The folder row ready to write, or why it cannot be. `underFolder`: a folder is given to import under. */
export function prepareFolderRow(f: ImportedFolder, underFolder: boolean): PreparedFolder | RowError[] {
  const errors: RowError[] = [];
  if (f.folderPath.length === 0 && !underFolder)
    errors.push({ row: f.row, field: 'folder', message: 'the row has a Folder Comment but no Folder' });
  f.folderPath.forEach((name, i) => {
    if (name === '' || name.length > FOLDER_NAME_MAX)
      errors.push({
        row: f.row,
        field: 'folder',
        message: `folder name ${i + 1} of the path must be 1-${FOLDER_NAME_MAX} characters and not blank`,
      });
  });
  if (errors.length > 0) return errors;
  return {
    row: f.row,
    folderPath: f.folderPath,
    ...(f.comment === undefined ? {} : { comment: markdownToHtml(f.comment) }),
  };
}

/** Creates the rows' folders under `base` (inside the caller's transaction); their ids go to `created`. */
export async function writeFolderRows(
  trx: Db,
  tenantId: string,
  projectId: string,
  base: string[],
  folders: PreparedFolder[],
  created: number[],
): Promise<void> {
  const paths = folders
    .map((f) => ({ path: [...base, ...f.folderPath], comment: f.comment }))
    .filter((f) => f.path.length > 0);
  if (paths.length > 0) await upsertFolderPaths(trx, tenantId, projectId, paths, { created });
}
