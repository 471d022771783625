import type { Readable } from 'node:stream';
import { unguardFormulas } from '../../../lib/csv.js';
import { readCsv, UnreadableFile, type CsvRecord } from './csv-read.js';
import { stepsOf } from './qasphere-steps.js';
import type { ImportedCase, ImportedStep, ParsedItem, RowError } from './types.js';

/*
 * QA Sphere's CSV, both layouts: the documented one (Step N / Expected N column pairs) and the one its CSV library
 * (Hypersequent's qasphere-csv) writes (one `Steps` cell holding a JSON array, read by qasphere-steps.ts, and a
 * `Folder Comment` column, with rows that name only a folder). A `/` inside a folder name is written `\/`.
 * Requirements and links are `[Title](URL)` lists joined by commas, either part possibly empty; custom fields are
 * `custom_field_<type>_<systemName>` columns holding `{"value": …, "isDefault": …}`.
 */

const KNOWN = [
  'folder',
  'folder comment',
  'type',
  'name',
  'legacy id',
  'draft',
  'priority',
  'tags',
  'requirements',
  'links',
  'files',
  'preconditions',
  'steps',
  'parameter values',
  'template suffix params',
] as const;
const CUSTOM = /^custom_field_(text|dropdown|checkbox|richtext)_([a-z][a-z0-9_]*)$/;
const STEP = /^(step|expected) (\d{1,4})$/;

interface Layout {
  columns: Map<string, number>;
  steps: { n: number; description?: number; expected?: number }[];
  custom: { name: string; index: number }[];
  width: number;
}

function layoutOf(header: string[]): Layout {
  const columns = new Map<string, number>();
  const steps = new Map<number, { n: number; description?: number; expected?: number }>();
  const custom: { name: string; index: number }[] = [];
  header.forEach((raw, i) => {
    const h = raw.trim();
    const lower = h.toLowerCase();
    const step = STEP.exec(lower);
    const cf = CUSTOM.exec(h);
    if ((KNOWN as readonly string[]).includes(lower)) {
      if (columns.has(lower)) throw new UnreadableFile(`the column "${h}" appears twice in the header`, 1);
      columns.set(lower, i);
    } else if (step) {
      const n = Number(step[2]);
      const pair = steps.get(n) ?? { n };
      if (step[1] === 'step') pair.description = i;
      else pair.expected = i;
      steps.set(n, pair);
    } else if (cf) {
      custom.push({ name: cf[2], index: i });
    } else if (h !== '') {
      throw new UnreadableFile(
        `unknown column "${h}": QA Sphere's columns are Folder, Folder Comment, Type, Name, Legacy ID, Draft, Priority, Tags, ` +
          'Requirements, Links, Files, Preconditions, Steps or Step N / Expected N, Parameter Values, ' +
          'Template Suffix Params and custom_field_<type>_<systemName>',
        1,
      );
    }
  });
  if (!columns.has('name')) throw new UnreadableFile('the header has no "Name" column', 1);
  if (columns.has('steps') && steps.size > 0)
    throw new UnreadableFile('the header has both a "Steps" column and Step N / Expected N columns', 1);
  return { columns, steps: [...steps.values()].sort((a, b) => a.n - b.n), custom, width: header.length };
}

/**
 * Splits a `[Title](URL),[Title](URL)` list. Titles may hold brackets (balanced) and parentheses; a URL ends at
 * the `)` followed by the end of the cell or by a comma and the next `[`.
 */
export function parseLinkList(cell: string): { text: string; url: string }[] | string {
  const out: { text: string; url: string }[] = [];
  let i = 0;
  const s = cell.trim();
  while (i < s.length) {
    if (s[i] !== '[') return `expected "[Title](URL)" at character ${i + 1}`;
    let depth = 0;
    let j = i;
    for (; j < s.length; j++) {
      if (s[j] === '[') depth++;
      else if (s[j] === ']' && --depth === 0 && s[j + 1] === '(') break;
    }
    if (j >= s.length) return `"[Title](URL)" not closed after character ${i + 1}`;
    const text = s.slice(i + 1, j);
    let k = j + 2;
    let end = -1;
    for (; k < s.length; k++) {
      if (s[k] !== ')') continue;
      const rest = s.slice(k + 1);
      if (rest.trim() === '' || /^\s*,\s*\[/.test(rest)) {
        end = k;
        break;
      }
    }
    if (end < 0) return `the URL after "[${text}]" is not closed by ")"`;
    out.push({ text: text.trim(), url: s.slice(j + 2, end).trim() });
    i = end + 1;
    const sep = /^\s*,\s*/.exec(s.slice(i));
    if (sep) i += sep[0].length;
  }
  return out;
}

const splitList = (cell: string) =>
  cell
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');

function parseJson(cell: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(cell) as unknown };
  } catch {
    return { ok: false };
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A Parameter Values cell: a JSON array with one entry per filled case, each `{"values": {name: value}}` (what the
 * export and the API's parameterValues write) or the `{name: value}` object itself; every value a string.
 * Answers the value sets, or what is wrong with the cell.
 */
export function parameterValuesOf(cell: string): Record<string, string>[] | string {
  const parsed = parseJson(cell);
  if (!parsed.ok || !Array.isArray(parsed.value))
    return 'Parameter Values must be a JSON array like [{"values": {"browser": "Chrome"}}]';
  const out: Record<string, string>[] = [];
  for (const [i, entry] of parsed.value.entries()) {
    const values = isPlainObject(entry) && isPlainObject(entry.values) ? entry.values : entry;
    if (!isPlainObject(values) || !Object.values(values).every((v) => typeof v === 'string'))
      return `Parameter Values entry ${i + 1} must be an object of text values, like {"values": {"browser": "Chrome"}}`;
    out.push(values as Record<string, string>);
  }
  return out;
}

/** A Folder cell's path: `/` separates names, `\/` is a slash inside one. */
export function folderPathOf(cell: string): string[] {
  if (cell.trim() === '') return [];
  // A blank name inside a path ("a//b") is kept, for the pipeline to refuse by name.
  return cell.split(/(?<!\\)\//).map((f) => f.replaceAll('\\/', '/').trim());
}

/** Whether the row names only a folder: Folder or Folder Comment filled, every other cell blank. */
function isFolderRow(rec: CsvRecord, layout: Layout): boolean {
  const keep = new Set([layout.columns.get('folder'), layout.columns.get('folder comment')]);
  const blank = (c: string | undefined) => (c ?? '').trim() === '';
  return (
    rec.cells.some((c, i) => keep.has(i) && !blank(c)) && rec.cells.every((c, i) => keep.has(i) || blank(c))
  );
}

/** One record as a case (with what it holds that is kept elsewhere), or the reasons it cannot be one. */
function caseOf(
  rec: CsvRecord,
  layout: Layout,
): { case: ImportedCase; warnings: RowError[] } | { errors: RowError[] } {
  const warnings: RowError[] = [];
  const errors: RowError[] = [];
  const row = rec.line;
  const cell = (name: (typeof KNOWN)[number]) => {
    const i = layout.columns.get(name);
    return i === undefined ? '' : (rec.cells[i] ?? '');
  };
  if (rec.cells.length < layout.width && rec.cells.length !== 1) {
    return {
      errors: [
        {
          row,
          message: `the row has ${rec.cells.length} cells and the header ${layout.width}: is the file cut short?`,
        },
      ],
    };
  }
  const c: ImportedCase = {
    row,
    folderPath: folderPathOf(cell('folder')),
    title: cell('name'),
    markup: 'markdown',
  };
  const legacyId = cell('legacy id').trim();
  if (legacyId !== '') c.legacyId = legacyId;
  const type = cell('type').trim().toLowerCase();
  if (type !== '') c.type = type;
  const draft = cell('draft').trim().toLowerCase();
  if (draft === 'true') c.draft = true;
  else if (draft === 'false' || draft === '') c.draft = false;
  else errors.push({ row, field: 'Draft', message: `Draft must be true or false, not "${cell('draft')}"` });
  const priority = cell('priority').trim();
  if (priority !== '') c.priority = priority;
  const tags = splitList(cell('tags'));
  if (tags.length > 0) c.tags = tags;
  for (const [name, field] of [
    ['requirements', 'Requirements'],
    ['links', 'Links'],
  ] as const) {
    const raw = cell(name);
    if (raw.trim() === '') continue;
    const list = parseLinkList(raw);
    if (typeof list === 'string') errors.push({ row, field, message: `${field}: ${list}` });
    else c[name] = list;
  }
  if (layout.columns.has('files')) {
    const raw = cell('files').trim();
    const parsed = raw === '' ? { ok: true as const, value: [] } : parseJson(raw);
    const list = parsed.ok ? parsed.value : undefined;
    if (!Array.isArray(list) || !list.every((f) => typeof f === 'object' && f !== null))
      errors.push({
        row,
        field: 'Files',
        message: 'Files must be a JSON array of {"fileName", "id", "url", …} objects',
      });
    else
      c.files = (list as Record<string, unknown>[]).map((f) => ({
        // The library's older releases wrote `file_name` (and `mime_type`).
        fileName:
          typeof f.fileName === 'string' ? f.fileName : typeof f.file_name === 'string' ? f.file_name : '',
        id: typeof f.id === 'string' ? f.id : '',
        url: typeof f.url === 'string' ? f.url : '',
      }));
  }
  const precondition = cell('preconditions');
  if (precondition.trim() !== '') c.precondition = precondition;

  let steps: ImportedStep[] = [];
  if (layout.columns.has('steps')) {
    const raw = cell('steps').trim();
    if (raw !== '') {
      const read = stepsOf(row, raw);
      if ('error' in read) errors.push(read.error);
      else {
        steps = read.steps;
        warnings.push(...read.warnings);
      }
    }
  } else {
    for (const pair of layout.steps) {
      const description = pair.description === undefined ? '' : (rec.cells[pair.description] ?? '');
      const expected = pair.expected === undefined ? '' : (rec.cells[pair.expected] ?? '');
      steps.push({ description, expected });
    }
  }
  // Empty pairs are the padding of a file as wide as its widest case.
  steps = steps.filter((s) => s.shared || s.description.trim() !== '' || s.expected.trim() !== '');
  if (steps.length > 0) c.steps = steps;

  const params = cell('parameter values').trim();
  if (params !== '') {
    const list = parameterValuesOf(params);
    if (typeof list === 'string') errors.push({ row, field: 'Parameter Values', message: list });
    else c.parameterValues = list;
  }
  const suffix = cell('template suffix params').trim();
  if (suffix !== '') {
    const parsed = suffix.startsWith('[')
      ? parseJson(suffix)
      : { ok: true as const, value: splitList(suffix) };
    if (!parsed.ok || !Array.isArray(parsed.value) || !parsed.value.every((p) => typeof p === 'string'))
      errors.push({
        row,
        field: 'Template Suffix Params',
        message:
          'Template Suffix Params must be a comma-separated list of parameter names or a JSON array of them',
      });
    else c.templateSuffixParams = parsed.value as string[];
  }
  for (const { name, index } of layout.custom) {
    const raw = (rec.cells[index] ?? '').trim();
    if (raw === '') continue;
    const parsed = parseJson(raw);
    const value = parsed.ok ? (parsed.value as { value?: unknown } | null)?.value : undefined;
    if (typeof value !== 'string') {
      errors.push({
        row,
        field: `custom_field_${name}`,
        message: `custom field "${name}" must be a JSON object like {"value": "…", "isDefault": false}`,
      });
      continue;
    }
    if (value !== '') (c.customFields ??= {})[name] = value;
  }
  return errors.length > 0 ? { errors } : { case: c, warnings };
}

/** Yields the file's cases and row errors in order; throws UnreadableFile when the file as a whole is unreadable. */
export async function* parseQasphereCsv(stream: Readable, separator: string): AsyncGenerator<ParsedItem> {
  let layout: Layout | undefined;
  for await (const rec of readCsv(stream, separator)) {
    if (!layout) {
      layout = layoutOf(rec.cells);
      continue;
    }
    // A lone empty cell: a line of whitespace.
    if (rec.cells.length === 1 && rec.cells[0].trim() === '') continue;
    // The export's formula guard comes off here, so an export imported back gives the same text.
    const unguarded = { line: rec.line, cells: rec.cells.map(unguardFormulas) };
    const comment = layout.columns.has('folder comment')
      ? (unguarded.cells[layout.columns.get('folder comment')!] ?? '')
      : '';
    const folderRow = isFolderRow(unguarded, layout);
    if (folderRow || comment.trim() !== '') {
      const folderPath = folderPathOf(unguarded.cells[layout.columns.get('folder') ?? -1] ?? '');
      yield { folder: { row: rec.line, folderPath, ...(comment.trim() === '' ? {} : { comment }) } };
    }
    if (folderRow) continue;
    const out = caseOf(unguarded, layout);
    if ('case' in out) {
      yield { case: out.case };
      for (const warning of out.warnings) yield { warning };
    } else for (const error of out.errors) yield { error };
  }
  if (!layout) throw new UnreadableFile('the file is empty: no header row');
}
