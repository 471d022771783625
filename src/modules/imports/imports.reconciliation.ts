import type { ImportedCase } from './formats/types.js';
import type { PreparedCase } from './imports.prepare.js';

/*
 * The reconciliation at the end of every import (extensions.md §7a): per kind, how many the file held, how many the
 * import created, how many it changed, how many it left out; the reasons for what was left out are the import's
 * warnings and errors. What is neither created, changed nor left out was there already as the file has it.
 */

export const KINDS = ['folders', 'cases', 'steps', 'customValues', 'requirements', 'links', 'files'] as const;
export type Kind = (typeof KINDS)[number];
export interface Count {
  inFile: number;
  created: number;
  updated: number;
  leftOut: number;
}
export type Reconciliation = Record<Kind, Count>;
type RowKind = Exclude<Kind, 'folders' | 'cases'>;
type RowCounts = Record<RowKind, number>;
const ROW_KINDS: RowKind[] = ['steps', 'customValues', 'requirements', 'links', 'files'];

export const emptyReconciliation = (): Reconciliation =>
  Object.fromEntries(
    KINDS.map((k) => [k, { inFile: 0, created: 0, updated: 0, leftOut: 0 }]),
  ) as Reconciliation;

const prefixes = (path: string[]) => path.map((_, i) => JSON.stringify(path.slice(0, i + 1)));

/** Counts an import as it goes: pass 1 what the file holds, then what each row kept and how it was written. */
export class Tally {
  private readonly inFile: RowCounts = { steps: 0, customValues: 0, requirements: 0, links: 0, files: 0 };
  private readonly kept: RowCounts = { steps: 0, customValues: 0, requirements: 0, links: 0, files: 0 };
  private readonly created: RowCounts = { steps: 0, customValues: 0, requirements: 0, links: 0, files: 0 };
  private readonly updated: RowCounts = { steps: 0, customValues: 0, requirements: 0, links: 0, files: 0 };
  private readonly foldersInFile = new Set<string>();
  private readonly foldersKept = new Set<string>();
  private foldersCreated = 0;
  /** The links a row had before its files elsewhere were made links (those count as files, left out). */
  private readonly linksOf = new Map<number, number>();

  /** Pass 1: a case row as parsed (also a row that turns out bad). */
  caseInFile(c: ImportedCase) {
    this.inFile.steps += c.steps?.length ?? 0;
    this.inFile.customValues += Object.keys(c.customFields ?? {}).length;
    this.inFile.requirements += c.requirements?.length ?? 0;
    this.inFile.links += c.links?.length ?? 0;
    this.inFile.files += c.files?.length ?? 0;
    prefixes(c.folderPath).forEach((p) => this.foldersInFile.add(p));
    this.linksOf.set(c.row, c.links?.length ?? 0);
  }

  folderInFile(path: string[]) {
    prefixes(path).forEach((p) => this.foldersInFile.add(p));
  }

  folderKept(path: string[]) {
    prefixes(path).forEach((p) => this.foldersKept.add(p));
  }

  /** Folders the import created (pass 2). */
  foldersMade(n: number) {
    this.foldersCreated += n;
  }

  /** A row as written (or, on a dry run, as it would be): `customValues` the values it kept. */
  caseKept(p: PreparedCase, customValues: number, outcome: 'created' | 'updated' | 'unchanged') {
    this.folderKept(p.folderPath);
    const counts: RowCounts = {
      steps: p.steps?.length ?? p.content.steps.length,
      customValues,
      requirements: p.content.requirements.length,
      links: this.linksOf.get(p.row) ?? p.content.links.length,
      files: p.content.files?.length ?? 0,
    };
    for (const k of ROW_KINDS) {
      this.kept[k] += counts[k];
      if (outcome === 'created') this.created[k] += counts[k];
      if (outcome === 'updated') this.updated[k] += counts[k];
    }
  }

  /** Forgets what pass 1 of a dry run counted as kept (pass 2 counts again). */
  resetKept() {
    for (const k of ROW_KINDS) this.kept[k] = this.created[k] = this.updated[k] = 0;
    this.foldersKept.clear();
  }

  result(cases: { total: number; created: number; updated: number; skipped: number }): Reconciliation {
    const r = emptyReconciliation();
    r.cases = { inFile: cases.total, created: cases.created, updated: cases.updated, leftOut: cases.skipped };
    r.folders = {
      inFile: this.foldersInFile.size,
      created: this.foldersCreated,
      updated: 0,
      leftOut: Math.max(0, this.foldersInFile.size - this.foldersKept.size),
    };
    for (const k of ROW_KINDS)
      r[k] = {
        inFile: this.inFile[k],
        created: this.created[k],
        updated: this.updated[k],
        leftOut: Math.max(0, this.inFile[k] - this.kept[k]),
      };
    return r;
  }
}

/** The reconciliation as CSV: a header, then one line per kind. */
export function reconciliationCsv(r: Reconciliation): string {
  const lines = ['kind,inFile,created,updated,leftOut'];
  for (const k of KINDS) lines.push([k, r[k].inFile, r[k].created, r[k].updated, r[k].leftOut].join(','));
  return `${lines.join('\r\n')}\r\n`;
}
