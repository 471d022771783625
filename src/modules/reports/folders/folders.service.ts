import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { resolveProject } from '../../projects/projects.service.js';
import type { FolderReport, ReportCounts } from '../reports.schemas.js';
import { FAILING } from '../recent-runs.service.js';
import { addCount, comparePaths, emptyCounts, folderPaths } from '../reports.service.js';
import * as repo from './folders.repository.js';

/**
 * Failures by folder over the project's last N runs: each folder's run cases (a case counts once per run that
 * holds it, by its latest status there) with their whole path, most failures first, then by path.
 */
export async function folderReport(
  db: Db,
  actor: Actor,
  projectRef: string,
  last: number,
  limit: number,
): Promise<FolderReport> {
  const project = await resolveProject(db, actor, projectRef);
  const [pathOf, rows] = await Promise.all([
    folderPaths(db, actor.tenantId, project.id),
    repo.countRecentCasesByFolder(db, actor.tenantId, project.id, last),
  ]);
  const byFolder = new Map<number, ReportCounts>();
  for (const row of rows) {
    const id = Number(row.folder_id);
    const counts = byFolder.get(id) ?? emptyCounts();
    addCount(counts, row.status, Number(row.n));
    byFolder.set(id, counts);
  }
  const folders = [...byFolder].map(([id, counts]) => ({
    path: pathOf(id),
    failures: FAILING.reduce((n, s) => n + (counts[s as keyof ReportCounts] ?? 0), 0),
    results: counts.all - counts.open,
    counts,
  }));
  folders.sort((a, b) => b.failures - a.failures || comparePaths(a.path, b.path));
  return { folders: folders.slice(0, limit) };
}
