import type { Readable } from 'node:stream';
import { readCsv, UnreadableFile, type CsvRecord } from './csv-read.js';
import type { ImportedCase, ImportedStep, ParsedItem } from './types.js';

/*
 * Any CSV (or the first sheet of an .xlsx, read into the same records by xlsx-read.ts) with a column mapping (extensions.md §7): `{header: field}`, fields title, folder (a `/` path), priority,
 * tags (comma-separated), precondition, steps, expected, legacyId, customField:<systemName>. Columns not named are
 * ignored. Cells are plain text. A `steps` cell of numbered lines ("1. …") makes one step per number, matched by
 * number with the numbered lines of the `expected` cell.
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
export type Mapping = Record<string, Field>;

const CUSTOM_FIELD = /^customField:[a-z][a-z0-9_]{0,63}$/;

/** Checks a mapping given with a request; answers the problem in words, or the mapping. */
export function checkMapping(raw: unknown): Mapping | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return 'mapping must be a JSON object from column header to field';
  const seen = new Set<string>();
  for (const [header, field] of Object.entries(raw as Record<string, unknown>)) {
    if (
      typeof field !== 'string' ||
      !((MAPPING_FIELDS as readonly string[]).includes(field) || CUSTOM_FIELD.test(field))
    )
      return `mapping of column "${header}": the field must be one of ${MAPPING_FIELDS.join(', ')} or customField:<systemName>`;
    if (seen.has(field)) return `mapping names the field "${field}" for two columns`;
    seen.add(field);
  }
  if (!seen.has('title')) return 'mapping must name the column holding the title (field "title")';
  return raw as Mapping;
}

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

/** Yields the cases of the records (the first is the header) by the mapping. */
export async function* parseMapped(
  records: AsyncIterable<CsvRecord>,
  mapping: Mapping,
): AsyncGenerator<ParsedItem> {
  let columns: Map<Field, number> | undefined;
  for await (const rec of records) {
    if (!columns) {
      const header = rec.cells.map((h) => h.trim());
      columns = new Map();
      for (const [name, field] of Object.entries(mapping)) {
        const i = header.indexOf(name.trim());
        if (i < 0)
          throw new UnreadableFile(`the mapping names the column "${name}", which the file lacks`, 1);
        columns.set(field, i);
      }
      continue;
    }
    const cols = columns;
    const cell = (f: Field) => {
      const i = cols.get(f);
      return i === undefined ? '' : (rec.cells[i] ?? '');
    };
    if (rec.cells.length === 1 && rec.cells[0].trim() === '') continue;
    const c: ImportedCase = {
      row: rec.line,
      folderPath:
        cell('folder').trim() === ''
          ? []
          : cell('folder')
              .split('/')
              .map((f) => f.trim()),
      title: cell('title'),
      markup: 'text',
    };
    if (cell('priority').trim() !== '') c.priority = cell('priority').trim();
    const tags = cell('tags')
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    if (tags.length > 0) c.tags = tags;
    if (cell('precondition').trim() !== '') c.precondition = cell('precondition');
    const steps = stepsOf(cell('steps'), cell('expected'));
    if (steps.length > 0) c.steps = steps;
    if (cell('legacyId').trim() !== '') c.legacyId = cell('legacyId').trim();
    for (const field of cols.keys()) {
      if (!field.startsWith('customField:')) continue;
      const value = cell(field);
      if (value.trim() !== '') (c.customFields ??= {})[field.slice('customField:'.length)] = value;
    }
    yield { case: c };
  }
  if (!columns) throw new UnreadableFile('the file is empty: no header row');
}
