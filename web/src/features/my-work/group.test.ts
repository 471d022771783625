import { describe, expect, it } from 'vitest';
import type { MyWorkItem } from './api';
import { groupByRun } from './group';

const item = (runId: number, tcaseId: string): MyWorkItem => ({
  run: {
    id: runId,
    title: `Run ${runId}`,
    project: { id: 'p', code: 'WEB', title: 'Web' },
    open: 2,
    done: 0,
  },
  tcase: { id: tcaseId, seq: 1, title: tcaseId, priority: 'medium' },
  overdue: false,
});

describe('groupByRun', () => {
  it('keeps the order of the runs and joins a run split between pages', () => {
    const groups = groupByRun([
      { data: [item(7, 'a'), item(3, 'b')] },
      { data: [item(3, 'c'), item(9, 'd')] },
    ]);
    expect(groups.map((g) => [g.run.id, g.items.map((i) => i.tcase.id)])).toEqual([
      [7, ['a']],
      [3, ['b', 'c']],
      [9, ['d']],
    ]);
  });
});
