import type { Folder } from './api';

export interface FolderNode extends Folder {
  children: FolderNode[];
  depth: number;
}

export interface FolderIndex {
  roots: FolderNode[];
  byId: Map<number, FolderNode>;
  /** Depth-first, for the "move to" and "folder" pickers. */
  flat: FolderNode[];
}

/** The API's flat list as a tree, siblings in their order (`pos`). */
export function indexFolders(folders: Folder[]): FolderIndex {
  const byId = new Map<number, FolderNode>();
  for (const f of folders) byId.set(f.id, { ...f, children: [], depth: 0 });
  const roots: FolderNode[] = [];
  for (const node of byId.values()) {
    const parent = node.parentId ? byId.get(node.parentId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  const flat: FolderNode[] = [];
  const walk = (list: FolderNode[], depth: number) => {
    list.sort((a, b) => a.pos - b.pos || a.id - b.id);
    for (const n of list) {
      n.depth = depth;
      flat.push(n);
      walk(n.children, depth + 1);
    }
  };
  walk(roots, 0);
  return { roots, byId, flat };
}

/** A folder and everything under it: what "cases in this folder" means on the list. */
export function subtreeIds(node: FolderNode): number[] {
  const out: number[] = [];
  const stack = [node];
  while (stack.length) {
    const n = stack.pop()!;
    out.push(n.id);
    stack.push(...n.children);
  }
  return out;
}

export function siblingsOf(index: FolderIndex, node: FolderNode): FolderNode[] {
  return node.parentId ? (index.byId.get(node.parentId)?.children ?? []) : index.roots;
}

/** Ancestors first, ending with the folder itself. */
export function pathOf(index: FolderIndex, id: number): FolderNode[] {
  const out: FolderNode[] = [];
  let n = index.byId.get(id);
  while (n) {
    out.unshift(n);
    n = n.parentId ? index.byId.get(n.parentId) : undefined;
  }
  return out;
}

/** Where a folder goes: under `parentId` (0: the top), at `pos` among its new siblings. */
export interface Placement {
  parentId: number;
  pos: number;
}

/** The index a folder takes among `siblings` once it has left its old place (the API's `pos`). */
export function placementNear(
  index: FolderIndex,
  moving: FolderNode,
  target: FolderNode,
  after: boolean,
): Placement {
  const others = siblingsOf(index, target).filter((s) => s.id !== moving.id);
  const at = others.findIndex((s) => s.id === target.id);
  return { parentId: target.parentId, pos: at + (after ? 1 : 0) };
}
