/**
 * The new-run folder picker's rules, as plain functions: the tree of folders, which rows show (expanded parents),
 * each folder's check state, what a check does, and how many cases the chosen folders hold. A chosen folder
 * selects its whole subtree (the query plan's `folderIds` include subfolders), so the choice is kept as the
 * topmost chosen folders only.
 */

export interface PickerFolder {
  id: number;
  parentId: number;
  pos: number;
  title: string;
}

export interface PickerTree {
  byId: Map<number, PickerFolder>;
  /** Children by parent id (0: the roots), in the repository's order (`pos`, then id). */
  children: Map<number, PickerFolder[]>;
}

export function pickerTree(folders: readonly PickerFolder[]): PickerTree {
  const byId = new Map(folders.map((f) => [f.id, f]));
  const children = new Map<number, PickerFolder[]>();
  for (const f of folders) {
    // A folder whose parent is not listed shows as a root rather than not at all.
    const parent = f.parentId && byId.has(f.parentId) ? f.parentId : 0;
    const list = children.get(parent);
    if (list) list.push(f);
    else children.set(parent, [f]);
  }
  for (const list of children.values()) list.sort((a, b) => a.pos - b.pos || a.id - b.id);
  return { byId, children };
}

export interface PickerRow {
  folder: PickerFolder;
  /** 1 for a root (aria-level). */
  level: number;
  /** 1-based place among its siblings, and their number (aria-posinset, aria-setsize). */
  posInSet: number;
  setSize: number;
  hasChildren: boolean;
  expanded: boolean;
  /** The row of its parent, for ← (undefined for a root). */
  parentId?: number;
}

/** The rows on screen, depth-first: the roots and the children of every expanded folder. */
export function visibleRows(tree: PickerTree, expanded: ReadonlySet<number>): PickerRow[] {
  const out: PickerRow[] = [];
  const walk = (parent: number, level: number) => {
    const list = tree.children.get(parent) ?? [];
    list.forEach((folder, i) => {
      const hasChildren = (tree.children.get(folder.id)?.length ?? 0) > 0;
      const open = hasChildren && expanded.has(folder.id);
      out.push({
        folder,
        level,
        posInSet: i + 1,
        setSize: list.length,
        hasChildren,
        expanded: open,
        parentId: parent || undefined,
      });
      if (open) walk(folder.id, level + 1);
    });
  };
  walk(0, 1);
  return out;
}

export type CheckState = 'checked' | 'inherited' | 'mixed' | 'unchecked';

/**
 * Every folder's state: `checked` (chosen), `inherited` (under a chosen folder: in already, not a choice of its
 * own), `mixed` (some folder under it chosen), `unchecked`.
 */
export function checkStates(tree: PickerTree, chosen: readonly number[]): Map<number, CheckState> {
  const picked = new Set(chosen);
  const out = new Map<number, CheckState>();
  // Top-down for inheritance, then each folder answers whether anything under it is chosen.
  const walk = (parent: number, inherited: boolean): boolean => {
    let any = false;
    for (const f of tree.children.get(parent) ?? []) {
      const own = picked.has(f.id);
      const below = walk(f.id, inherited || own);
      out.set(f.id, inherited ? 'inherited' : own ? 'checked' : below ? 'mixed' : 'unchecked');
      any ||= own || below;
    }
    return any;
  };
  walk(0, false);
  return out;
}

/** The ids of a folder's whole subtree, itself excluded. */
function descendants(tree: PickerTree, id: number): Set<number> {
  const out = new Set<number>();
  const stack = [...(tree.children.get(id) ?? [])];
  while (stack.length) {
    const f = stack.pop()!;
    out.add(f.id);
    stack.push(...(tree.children.get(f.id) ?? []));
  }
  return out;
}

/**
 * What checking a folder does: a chosen one is unchosen; an unchosen or mixed one is chosen, taking the place of
 * the folders chosen under it (its subtree is in now). A folder inside a chosen one does not change.
 */
export function toggleFolder(tree: PickerTree, chosen: readonly number[], id: number): number[] {
  const state = checkStates(tree, chosen).get(id);
  if (state === undefined || state === 'inherited') return [...chosen];
  if (state === 'checked') return chosen.filter((x) => x !== id);
  const under = descendants(tree, id);
  return [...chosen.filter((x) => !under.has(x)), id];
}

/** The cases the chosen folders hold, subfolders included; undefined until the counts are known. */
export function chosenCases(
  tree: PickerTree,
  chosen: readonly number[],
  counts: ReadonlyMap<number, { subtree: number }> | undefined,
): number | undefined {
  if (!counts) return undefined;
  const states = checkStates(tree, chosen);
  // Only the topmost chosen folders count: one under another is in its subtree's number already.
  return chosen
    .filter((id) => states.get(id) === 'checked')
    .reduce((n, id) => n + (counts.get(id)?.subtree ?? 0), 0);
}
