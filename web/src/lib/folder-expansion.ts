/**
 * Which folders of a project's tree are expanded, kept in this browser (localStorage, one entry per project), so
 * the tree opens as it was left across reloads and pages. A storage that refuses (private mode, full) only loses
 * the memory, never the page.
 */
const storageKey = (code: string) => `casebook.folders.expanded.${code.toUpperCase()}`;

export function readExpanded(code: string): Set<number> {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(storageKey(code)) ?? '[]');
    return new Set(Array.isArray(stored) ? stored.filter((id): id is number => Number.isInteger(id)) : []);
  } catch {
    return new Set();
  }
}

/** Keeps the expanded folders that still exist (`known`), so deleted folders do not pile up. */
export function writeExpanded(code: string, ids: Iterable<unknown>, known: (id: number) => boolean): void {
  const kept = [...ids].map(Number).filter((id) => Number.isInteger(id) && known(id));
  try {
    if (kept.length === 0) localStorage.removeItem(storageKey(code));
    else localStorage.setItem(storageKey(code), JSON.stringify(kept.sort((a, b) => a - b)));
  } catch {
    // Nothing to do: the tree still works, it just will not remember.
  }
}
