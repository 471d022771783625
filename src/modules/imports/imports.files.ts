import type { Db } from '../../db/create-db.js';
import { isHttpUrl } from '../../lib/urls.js';
import { knownFileIds } from '../files/files.service.js';
import type { RowError } from './formats/types.js';
import type { PreparedCase } from './imports.prepare.js';

/*
 * QA Sphere's Files column (a JSON list of {fileName, id, url, mimeType, size}: the files of the service the file came
 * from). A file of this tenant, as in a Casebook export imported back into the same service, is attached again. A file
 * elsewhere is not fetched (an import makes no outbound calls): its URL is kept as a link of the case named by the
 * file name, and a warning says so; one without an http(s) URL is left out with a warning. Never silently.
 */

/** Sets each case's `content.files` (and the links standing for files elsewhere); answers the warnings. */
export async function placeFiles(db: Db, tenantId: string, batch: PreparedCase[]): Promise<RowError[]> {
  const known = await knownFileIds(
    db,
    tenantId,
    batch.flatMap((p) => (p.files ?? []).flatMap((f) => (f.id === '' ? [] : [f.id]))),
  );
  const warnings: RowError[] = [];
  for (const p of batch) {
    if (!p.files) continue;
    const ids: string[] = [];
    for (const f of p.files) {
      const name = f.fileName.trim() || f.id || f.url || 'without a name';
      if (f.id !== '' && known.has(f.id)) {
        if (!ids.includes(f.id)) ids.push(f.id);
      } else if (isHttpUrl(f.url)) {
        if (!p.content.links.some((l) => l.url === f.url)) p.content.links.push({ text: name, url: f.url });
        warnings.push({
          row: p.row,
          field: 'Files',
          message: `file "${name}" is not in this service: kept as a link to its URL, not as an attachment`,
        });
      } else {
        warnings.push({
          row: p.row,
          field: 'Files',
          message: `file "${name}" is not in this service and has no http(s) URL: left out`,
        });
      }
    }
    p.content.files = ids;
  }
  return warnings;
}
