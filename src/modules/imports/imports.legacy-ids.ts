import type { RowError } from './formats/types.js';
import { LEGACY_ID_MAX } from './imports.prepare.js';

/*
 * Rows of one file that share a Legacy ID (QA Sphere's own sample has two) are each imported: the first keeps the
 * id, the n-th gets `<id> (n)` with a warning, so a second import of the same file matches each of them again.
 * Both passes of an import number the same rows in the same order, so they give the same ids.
 */
export class LegacyIds {
  private readonly taken = new Map<string, number>();
  private readonly uses = new Map<string, number>();

  /** Sets the row's legacy id to the one it gets; answers the warning when that is not the file's. */
  take(p: { row: number; legacyId?: string }): RowError | undefined {
    const id = p.legacyId;
    if (id === undefined) return undefined;
    const first = this.taken.get(id);
    let n = (this.uses.get(id) ?? 0) + 1;
    this.uses.set(id, n);
    if (first === undefined) {
      this.taken.set(id, p.row);
      return undefined;
    }
    let renamed: string;
    do {
      const suffix = ` (${n++})`;
      renamed = `${id.slice(0, LEGACY_ID_MAX - suffix.length)}${suffix}`;
    } while (this.taken.has(renamed));
    this.uses.set(id, n - 1);
    this.taken.set(renamed, p.row);
    p.legacyId = renamed;
    return {
      row: p.row,
      field: 'legacyId',
      message: `legacy id "${id}" is already on row ${first}: this row's case gets "${renamed}"`,
    };
  }
}
