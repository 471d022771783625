/**
 * Whole folder paths, the one way every page names a folder: the titles from the root down to the
 * folder, and a long path shortened in the middle (`Shop / … / Checkout / Cards`) so the top folder and the leaf
 * stay in view. Pure: the `FolderPath` component (components/FolderPath.tsx) and plain-text places (a select's
 * options) both use these.
 */

/** What a folder needs to be placed in a path: the API's folder has these fields. */
export interface PathFolder {
  id: number;
  parentId: number;
  title: string;
}

export const PATH_SEPARATOR = ' / ';
export const ELLIPSIS = '…';

/** The titles from the root down to `id` (itself last); empty for an unknown folder. Safe against a cycle. */
export function folderPath(byId: ReadonlyMap<number, PathFolder>, id: number): string[] {
  const out: string[] = [];
  const seen = new Set<number>();
  for (let f = byId.get(id); f && !seen.has(f.id); f = f.parentId ? byId.get(f.parentId) : undefined) {
    seen.add(f.id);
    out.push(f.title);
  }
  return out.reverse();
}

/** Every folder's whole path by id, in one pass over the list (each folder's parent path is built once). */
export function folderPaths(folders: readonly PathFolder[]): Map<number, string[]> {
  const byId = new Map(folders.map((f) => [f.id, f]));
  const out = new Map<number, string[]>();
  const pathOf = (id: number, seen: Set<number>): string[] => {
    const known = out.get(id);
    if (known) return known;
    const f = byId.get(id);
    if (!f || seen.has(id)) return [];
    seen.add(id);
    const path = [...(f.parentId ? pathOf(f.parentId, seen) : []), f.title];
    out.set(id, path);
    return path;
  };
  for (const f of folders) pathOf(f.id, new Set());
  return out;
}

/** The path as one line: `Shop / Checkout / Cards`. */
export const pathText = (path: readonly string[]): string => path.join(PATH_SEPARATOR);

/** How many characters a shortened path may take by default: about a third of a list row on a laptop. */
export const PATH_MAX_CHARS = 48;

/**
 * The path shortened in the middle to at most `max` characters where it can be: the first folder, `…`, and as
 * many folders from the leaf up as fit (the leaf always, even when it alone is longer). A path that fits, or has
 * two folders or fewer, stays whole.
 */
export function shortenPath(path: readonly string[], max = PATH_MAX_CHARS): string[] {
  if (path.length <= 2 || pathText(path).length <= max) return [...path];
  const first = path[0];
  const tail: string[] = [path[path.length - 1]];
  const length = (parts: string[]) => pathText([first, ELLIPSIS, ...parts]).length;
  // The folder just under the top one never joins: with it nothing would be left out, and the whole path is longer.
  for (let i = path.length - 2; i >= 2 && length([path[i], ...tail]) <= max; i--) tail.unshift(path[i]);
  return [first, ELLIPSIS, ...tail];
}

/** The shortened path as one line, and whether anything was left out (then the whole path goes in a title). */
export function shortPathText(
  path: readonly string[],
  max = PATH_MAX_CHARS,
): { text: string; shortened: boolean } {
  const short = shortenPath(path, max);
  return {
    text: pathText(short),
    shortened: short.length !== path.length || short.some((s, i) => s !== path[i]),
  };
}
