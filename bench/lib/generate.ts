import { Client, mapLimit } from './client.js';

export interface Dataset {
  projectCode: string;
  folderIds: number[];
  /** Leaf folders, where the cases live. */
  leafFolderIds: number[];
  topFolderIds: number[];
  tcaseIds: string[];
  tagTitles: string[];
  /** A static_struct run holding every case: results are recorded into it. */
  bigRunId: number;
  runIds: number[];
}

const TOP = 4;
const MID = 7;
const LEAF = 7; // 4 + 28 + 196 = 228 folders, three deep

/**
 * The data set: one project with `tcaseCount` cases in ~200 folders three deep, tags, custom fields,
 * and `runCount` runs. Everything goes through the public API, as a real client would build it.
 */
export async function generateDataset(
  client: Client,
  options: { code: string; tcaseCount: number; runCount: number; log: (s: string) => void },
): Promise<Dataset> {
  const { code, tcaseCount, runCount, log } = options;
  await client.post('/project', { code, title: `Bench ${code}` });

  const paths: string[][] = [];
  for (let a = 0; a < TOP; a++)
    for (let b = 0; b < MID; b++)
      for (let c = 0; c < LEAF; c++) paths.push([`Area ${a}`, `Feature ${b}`, `Suite ${c}`]);
  const { ids } = await client.post<{ ids: number[][] }>(`/project/${code}/tcase/folder/bulk`, {
    folders: paths.map((path) => ({ path })),
  });
  const folderIds = [...new Set(ids.flat())];
  const leafFolderIds = ids.map((p) => p[2]);
  const topFolderIds = [...new Set(ids.map((p) => p[0]))];
  log(`  folders: ${folderIds.length}`);

  const tagTitles = Array.from({ length: 20 }, (_, i) => `tag-${i}`);
  const perLeaf = Math.ceil(tcaseCount / paths.length);
  const tcaseIds: string[] = [];
  let made = 0;
  const batches = paths.map((path, i) => {
    const n = Math.max(0, Math.min(perLeaf, tcaseCount - i * perLeaf));
    return { path, n };
  });
  const created = await mapLimit(batches, 4, async ({ path, n }, i) => {
    if (n === 0) return [];
    const res = await client.post<{ tcases: { id: string; seq: number }[] }>(`/project/${code}/tcase/bulk`, {
      folderPath: path,
      tcases: Array.from({ length: n }, (_, j) => ({
        title: `Case ${i}-${j} checks ${path.join(' / ')}`,
        tags: [tagTitles[(i + j) % tagTitles.length], tagTitles[(i * 7 + j) % tagTitles.length]],
      })),
    });
    made += n;
    if (i % 50 === 0) log(`  test cases: ${made}/${tcaseCount}`);
    return res.tcases.map((t) => t.id);
  });
  for (const ids of created) tcaseIds.push(...ids);
  log(`  test cases: ${tcaseIds.length}`);

  const bigRun = await client.post<{ id: number }>(`/project/${code}/run`, {
    title: 'Everything',
    type: 'static_struct',
    queryPlans: [{ tcaseIds }],
  });

  const runIds = await mapLimit(
    Array.from({ length: runCount }, (_, i) => i),
    8,
    async (i) => {
      const start = (i * 37) % Math.max(1, tcaseIds.length - 20);
      const res = await client.post<{ id: number }>(`/project/${code}/run`, {
        title: `Nightly ${i}`,
        type: i % 2 === 0 ? 'static' : 'static_struct',
        queryPlans: [{ tcaseIds: tcaseIds.slice(start, start + 20) }],
      });
      if (i % 250 === 0) log(`  runs: ${i}/${runCount}`);
      return res.id;
    },
  );
  log(`  runs: ${runIds.length + 1}`);
  return {
    projectCode: code,
    folderIds,
    leafFolderIds,
    topFolderIds,
    tcaseIds,
    tagTitles,
    bigRunId: bigRun.id,
    runIds,
  };
}
