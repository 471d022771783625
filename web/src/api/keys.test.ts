import { QueryClient, type QueryKey } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { queryKeys } from './keys';

/** The keys among `keys` that invalidating `prefix` marks stale, as TanStack Query decides it. */
async function invalidatedBy(prefix: QueryKey, keys: QueryKey[], exact = false): Promise<QueryKey[]> {
  const client = new QueryClient();
  for (const key of keys) client.setQueryData(key, 'data');
  await client.invalidateQueries({ queryKey: prefix, exact, refetchType: 'none' });
  return keys.filter((key) => client.getQueryState(key)?.isInvalidated);
}

describe('queryKeys', () => {
  it('gives a project the same keys whatever the case of its code in the address', () => {
    expect(queryKeys.project('demo')).toEqual(queryKeys.project('DEMO'));
    expect(queryKeys.runCase('demo', 7, 'a1')).toEqual(queryKeys.runCase('Demo', 7, 'a1'));
  });

  it("refreshes the runs list, each run and its cases when a project's runs change, and not its folders", async () => {
    const keys = [
      queryKeys.run('P', 1),
      queryKeys.runCases('P', 1),
      queryKeys.runCase('P', 1, 'c'),
      queryKeys.runLogs('P', 1),
      queryKeys.folders('P'),
      queryKeys.runs('Q'),
    ];
    expect(await invalidatedBy(queryKeys.runs('P'), keys)).toEqual(keys.slice(0, 4));
  });

  it('refreshes only the list of a run, not each case, when its cases are reloaded exactly', async () => {
    const keys = [queryKeys.runCases('P', 1), queryKeys.runCase('P', 1, 'c'), queryKeys.runCases('P', 2)];
    expect(await invalidatedBy(queryKeys.runCases('P', 1), keys, true)).toEqual([keys[0]]);
  });

  it("refreshes every case, version and pick list of a project after a case is saved, not the repository's list", async () => {
    const keys = [
      queryKeys.testCase('P', '12'),
      queryKeys.testCaseVersions('P', 'id', 3),
      queryKeys.filledCases('P', 'tpl'),
      queryKeys.pickableCases('P', 'login'),
      queryKeys.caseListPage('P', { sortField: 'seq' }, 0),
    ];
    expect(await invalidatedBy(queryKeys.testCases('P'), keys)).toEqual(keys.slice(0, 4));
  });

  it('refreshes every page of the repository list after a bulk write, and neither the tree nor the tags', async () => {
    const keys = [
      queryKeys.caseListPage('P', { sortField: 'seq' }, 0),
      queryKeys.caseListPage('P', { sortField: 'title', folders: [1] }, 3),
      queryKeys.folders('P'),
      queryKeys.tags('P'),
    ];
    expect(await invalidatedBy(queryKeys.caseLists('P'), keys)).toEqual(keys.slice(0, 2));
  });

  it('refreshes the folder case counts with any test-case write, not with the folder list alone', async () => {
    const keys = [queryKeys.folderCounts('P'), queryKeys.folders('P'), queryKeys.folderCounts('Q')];
    expect(await invalidatedBy(queryKeys.testCases('P'), keys)).toEqual(keys.slice(0, 1));
    expect(await invalidatedBy(queryKeys.folders('P'), keys)).toEqual([keys[1]]);
  });

  it("keeps the person's own settings under them, so a sign-in refreshes both, and an exact refresh only the person", async () => {
    const keys = [queryKeys.me(), queryKeys.twoFactor(), queryKeys.apiKeys()];
    expect(await invalidatedBy(queryKeys.me(), keys)).toEqual(keys);
    expect(await invalidatedBy(queryKeys.me(), keys, true)).toEqual([keys[0]]);
  });

  it('refreshes everything of every project when the list of projects changes', async () => {
    const keys = [
      queryKeys.project('P'),
      queryKeys.plan('P', 4),
      queryKeys.milestones('Q'),
      queryKeys.statuses(),
    ];
    expect(await invalidatedBy(queryKeys.projects(), keys)).toEqual(keys.slice(0, 3));
  });
});
