import type { MyWorkItem } from './api';

export interface RunGroup {
  run: MyWorkItem['run'];
  items: MyWorkItem[];
}

/**
 * The loaded pages' cases as runs, in the order the API sends them (docs/api-decisions.md#my-work): a run split
 * between two pages is one group.
 */
export function groupByRun(pages: readonly { data: readonly MyWorkItem[] }[]): RunGroup[] {
  const groups = new Map<number, RunGroup>();
  for (const page of pages)
    for (const item of page.data) {
      const group = groups.get(item.run.id);
      if (group) group.items.push(item);
      else groups.set(item.run.id, { run: item.run, items: [item] });
    }
  return [...groups.values()];
}
