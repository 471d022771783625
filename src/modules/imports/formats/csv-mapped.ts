import type { Readable } from 'node:stream';
import { readCsv, UnreadableFile, type CsvRecord } from './csv-read.js';
import { mapPriority } from './testrail-common.js';
import type { ImportedCase, ImportedStep, ParsedItem } from './types.js';

/*
 * Any CSV (or the first sheet of an .xlsx, read into the same records by xlsx-read.ts) with a column mapping
 * (extensions.md §7): `{header: field}`, fields title, folder (a `/` path), priority, tags (comma-separated),
 * precondition, steps, expected, legacyId, customField:<systemName>, or `skip` to leave a column out. A column may
 * instead map to `{field, values?, separator?}`: `values` maps the file's values to Casebook's (priority and
 * custom fields: `{"Critical": "high"}`), `separator` splits the folder path (`" > "`) or the tags. Every column
 * not mapped, and every one skipped, is named in a warning: nothing is dropped unsaid. Cells are plain text. A
 * `steps` cell of numbered lines ("1. …") makes one step per number, matched by number with the numbered lines of
 * the `expected` cell; a row without title and legacy id that has steps continues the case above (TestRail's
 * one step a row).
 */

export const MAPPING_FIELDS = [
  'title',
  'folder',
  'priority',
  'tags',
  'precondition',
  'steps',
  'expected',
  'legacyId',
] as const;
type Field = (typeof MAPPING_FIELDS)[number] | `customField:${string}`;
/** A column's mapping in full: the field, a map of its values, the separator of its parts. */
export interface ColumnMapping {
  field: Field | 'skip';
  values?: Record<string, string>;
  separator?: string;
}
export type Mapping = Record<string, Field | 'skip' | ColumnMapping>;

const CUSTOM_FIELD = /^customField:[a-z][a-z0-9_]{0,63}$/;
const MAX_VALUES = 1000;
const MAX_VALUE = 255;
const MAX_SEPARATOR = 10;

const isField = (f: unknown): f is Field =>
  typeof f === 'string' && ((MAPPING_FIELDS as readonly string[]).includes(f) || CUSTOM_FIELD.test(f));

/** The problem with one column's mapping in words, or undefined. */
function columnProblem(header: string, raw: unknown): string | undefined {
  const of = `mapping of column "${header}"`;
  const full = typeof raw === 'object' && raw !== null && !Array.isArray(raw);
  const field = full ? (raw as { field?: unknown }).field : raw;
  if (!isField(field) && field !== 'skip')
    return `${of}: the field must be one of ${MAPPING_FIELDS.join(', ')}, customField:<systemName> or skip`;
  if (!full) return undefined;
  const { values, separator, ...rest } = raw as { field: string; values?: unknown; separator?: unknown };
  const extra = Object.keys(rest).filter((k) => k !== 'field');
  if (extra.length > 0) return `${of}: unknown key "${extra[0]}" (field, values, separator)`;
  if (values !== undefined) {
    if (field !== 'priority' && !String(field).startsWith('customField:'))
      return `${of}: values map only priority and custom field columns`;
    if (typeof values !== 'object' || values === null || Array.isArray(values))
      return `${of}: values must be an object from the file's value to Casebook's`;
    const entries = Object.entries(values);
    if (entries.length > MAX_VALUES) return `${of}: at most ${MAX_VALUES} values`;
    for (const [from, to] of entries) {
      if (typeof to !== 'string' || to.length > MAX_VALUE)
        return `${of}: the value for "${from}" must be text of at most ${MAX_VALUE} characters`;
    }
  }
  if (separator !== undefined) {
    if (field !== 'folder' && field !== 'tags')
      return `${of}: a separator splits only folder and tags columns`;
    if (typeof separator !== 'string' || separator.trim() === '' || separator.length > MAX_SEPARATOR)
      return `${of}: separator must be 1-${MAX_SEPARATOR} characters, not only spaces`;
  }
  return undefined;
}

/** Checks a mapping given with a request; answers the problem in words, or the mapping. */
export function checkMapping(raw: unknown): Mapping | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return 'mapping must be a JSON object from column header to field';
  const seen = new Set<string>();
  for (const [header, column] of Object.entries(raw as Record<string, unknown>)) {
    const problem = columnProblem(header, column);
    if (problem) return problem;
    const field = fieldOf(column as Mapping[string]);
    if (field === 'skip') continue;
    if (seen.has(field)) return `mapping names the field "${field}" for two columns`;
    seen.add(field);
  }
  if (!seen.has('title')) return 'mapping must name the column holding the title (field "title")';
  return raw as Mapping;
}

const fieldOf = (column: Mapping[string]) => (typeof column === 'string' ? column : column.field);

/**
 * Priorities by the words other tools use, as Casebook's three: Jira's (Highest … Lowest, and Blocker, Critical,
 * Major, Minor, Trivial), TestRail's (Critical, High, Medium, Low), and P0–P4. A value the column's own `values`
 * map names comes first; one neither knows is passed on for the pipeline to report.
 */
const PRIORITY_WORDS: Record<string, string> = {
  blocker: 'high',
  critical: 'high',
  highest: 'high',
  urgent: 'high',
  high: 'high',
  p0: 'high',
  p1: 'high',
  major: 'medium',
  normal: 'medium',
  medium: 'medium',
  moderate: 'medium',
  p2: 'medium',
  minor: 'low',
  trivial: 'low',
  low: 'low',
  lowest: 'low',
  p3: 'low',
  p4: 'low',
};

const NUMBERED = /^\s*(\d{1,4})[.)]\s+(.*)$/;

/** Numbered lines as number → text (unnumbered lines continue the previous item); no numbers: one item, 1. */
function numberedLines(cell: string): Map<number, string> {
  const out = new Map<number, string>();
  if (cell.trim() === '') return out;
  const lines = cell.split(/\r?\n/);
  if (!lines.some((l) => NUMBERED.test(l))) {
    out.set(1, cell.trim());
    return out;
  }
  let current = 0;
  for (const line of lines) {
    const m = NUMBERED.exec(line);
    if (m) {
      current = Number(m[1]);
      out.set(current, [out.get(current), m[2]].filter((x) => x !== undefined).join('\n'));
    } else if (line.trim() !== '') {
      out.set(current, [out.get(current), line].filter((x) => x !== undefined).join('\n'));
    }
  }
  return out;
}

export function stepsOf(stepsCell: string, expectedCell: string): ImportedStep[] {
  const steps = numberedLines(stepsCell);
  const expected = numberedLines(expectedCell);
  const numbers = [...new Set([...steps.keys(), ...expected.keys()])].sort((a, b) => a - b);
  return numbers.map((n) => ({ description: steps.get(n) ?? '', expected: expected.get(n) ?? '' }));
}

/** Yields the file's cases by the mapping; throws UnreadableFile when a mapped column is missing. */
export const parseMappedCsv = (stream: Readable, separator: string, mapping: Mapping) =>
  parseMapped(readCsv(stream, separator), mapping);

interface Column {
  index: number;
  values?: Map<string, string>;
  separator?: string;
}

/** A value through the column's map: exact first, then regardless of case and surrounding spaces. */
function mapped(column: Column | undefined, value: string): string {
  if (!column?.values) return value;
  return column.values.get(value) ?? column.values.get(value.trim().toLowerCase()) ?? value;
}

/** The columns the mapping names, by field; a warning for each column of the file left out. */
function readHeader(
  cells: string[],
  mapping: Mapping,
): { columns: Map<Field, Column>; warnings: ParsedItem[] } {
  const header = cells.map((h) => h.trim());
  const columns = new Map<Field, Column>();
  const named = new Set<string>();
  for (const [name, column] of Object.entries(mapping)) {
    const i = header.indexOf(name.trim());
    if (i < 0) throw new UnreadableFile(`the mapping names the column "${name}", which the file lacks`, 1);
    named.add(name.trim());
    const field = fieldOf(column);
    if (field === 'skip') continue;
    const full = typeof column === 'string' ? undefined : column;
    columns.set(field, {
      index: i,
      ...(full?.values
        ? {
            values: new Map(
              Object.entries(full.values).flatMap(([from, to]) => [
                [from, to] as const,
                [from.trim().toLowerCase(), to] as const,
              ]),
            ),
          }
        : {}),
      ...(full?.separator ? { separator: full.separator } : {}),
    });
  }
  const warnings: ParsedItem[] = header.flatMap((h) => {
    if (h === '') return [];
    const column = Object.hasOwn(mapping, h) ? mapping[h] : undefined;
    if (column !== undefined && fieldOf(column) !== 'skip') return [];
    const why = column === undefined ? 'not in the mapping' : 'as chosen';
    return [{ warning: { row: 0, field: `column:${h}`, message: `column "${h}" left out ${why}` } }];
  });
  return { columns, warnings };
}

/** Yields the cases of the records (the first is the header) by the mapping. */
export async function* parseMapped(
  records: AsyncIterable<CsvRecord>,
  mapping: Mapping,
): AsyncGenerator<ParsedItem> {
  let columns: Map<Field, Column> | undefined;
  let pending: ImportedCase | undefined;
  for await (const rec of records) {
    if (!columns) {
      const header = readHeader(rec.cells, mapping);
      columns = header.columns;
      yield* header.warnings;
      continue;
    }
    const cols = columns;
    const cell = (f: Field) => {
      const i = cols.get(f)?.index;
      return i === undefined ? '' : (rec.cells[i] ?? '');
    };
    if (rec.cells.length === 1 && rec.cells[0].trim() === '') continue;
    const steps = stepsOf(cell('steps'), cell('expected'));
    if (cell('title').trim() === '' && cell('legacyId').trim() === '' && pending && steps.length > 0) {
      // One step a row: this row continues the case above.
      (pending.steps ??= []).push(...steps);
      continue;
    }
    if (pending) yield { case: pending };
    const folderSeparator = cols.get('folder')?.separator ?? '/';
    const c: ImportedCase = {
      row: rec.line,
      folderPath:
        cell('folder').trim() === ''
          ? []
          : cell('folder')
              .split(folderSeparator)
              .map((f) => f.trim()),
      title: cell('title'),
      markup: 'text',
    };
    const priority = cell('priority').trim();
    if (priority !== '') {
      const given = mapped(cols.get('priority'), priority);
      c.priority = given === priority ? (mapPriority(priority, PRIORITY_WORDS) ?? priority) : given;
    }
    const tags = cell('tags')
      .split(cols.get('tags')?.separator ?? ',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    if (tags.length > 0) c.tags = tags;
    if (cell('precondition').trim() !== '') c.precondition = cell('precondition');
    if (steps.length > 0) c.steps = steps;
    if (cell('legacyId').trim() !== '') c.legacyId = cell('legacyId').trim();
    for (const [field, column] of cols) {
      if (!field.startsWith('customField:')) continue;
      const value = cell(field);
      if (value.trim() !== '')
        (c.customFields ??= {})[field.slice('customField:'.length)] = mapped(column, value);
    }
    pending = c;
  }
  if (!columns) throw new UnreadableFile('the file is empty: no header row');
  if (pending) yield { case: pending };
}
