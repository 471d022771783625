import type { RunTestCase } from '../api';
import { pathText } from '../../../lib/folder-path';
import type { Row } from './RunCaseList';

/** Cases in folder order, grouped under their folder's whole path, after the filters. */
export function toRows(
  cases: RunTestCase[],
  statusFilter: Set<string>,
  search: string,
  priorities: Set<string>,
  tagged: ReadonlySet<string> | undefined,
  folderPaths: ReadonlyMap<number, readonly string[]>,
  /** Only the cases assigned to this person; null: only those nobody is assigned; undefined: any. */
  assigneeId?: number | null,
): { rows: Row[]; visible: RunTestCase[] } {
  const term = search.trim().toLowerCase();
  const visible = cases.filter(
    (c) =>
      (statusFilter.size === 0 || statusFilter.has(c.status)) &&
      (priorities.size === 0 || priorities.has(c.priority)) &&
      (tagged === undefined || tagged.has(c.id)) &&
      (assigneeId === undefined || (c.assignee?.id ?? null) === assigneeId) &&
      (term === '' || c.title.toLowerCase().includes(term) || String(c.seq) === term.replace(/^\D+-/, '')),
  );
  const rows: Row[] = [];
  let folder: number | undefined;
  let header: Extract<Row, { kind: 'folder' }> | undefined;
  for (const c of visible) {
    if (c.folderId !== folder) {
      folder = c.folderId;
      const path = folderPaths.get(c.folderId) ?? [`Folder ${c.folderId}`];
      header = { kind: 'folder', id: c.folderId, path, title: pathText(path), count: 0 };
      rows.push(header);
    }
    header!.count++;
    rows.push({ kind: 'case', c });
  }
  return { rows, visible };
}
