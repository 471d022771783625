import { expect } from 'vitest';

/** A test's own request function over the public API (inject or fetch): method, path below /api/public/v0, body. */
export type ApiCall = (method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>;

/**
 * A project with one folder of `count` cases and a static run over them, made through the API the test uses:
 * the seed of the tests that then send results into the run while something fails underneath.
 */
export async function seedRun(
  api: ApiCall,
  code: string,
  title: string,
  count: number,
): Promise<{ tcaseIds: string[]; runId: number }> {
  expect((await api('POST', '/project', { code, title })).status).toBe(201);
  const folder = await api('POST', `/project/${code}/tcase/folder/bulk`, { folders: [{ path: ['Cases'] }] });
  const folderId = folder.body.ids[0][0];
  const tcaseIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const tc = await api('POST', `/project/${code}/tcase`, {
      title: `Case ${i}`,
      type: 'standalone',
      priority: 'medium',
      folderId,
    });
    tcaseIds.push(tc.body.id);
  }
  const run = await api('POST', `/project/${code}/run`, {
    title: 'Nightly',
    type: 'static_struct',
    queryPlans: [{ tcaseIds }],
  });
  return { tcaseIds, runId: run.body.id };
}
