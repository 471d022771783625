import { parse } from 'csv-parse/browser/esm/sync';
import type { Separator } from './api';

/** The test-case fields a generic CSV column can be mapped to (extensions.md §7), in words. */
export const BASE_FIELDS: [string, string][] = [
  ['title', 'Title'],
  ['folder', 'Folder (a / path)'],
  ['priority', 'Priority'],
  ['tags', 'Tags (comma-separated)'],
  ['precondition', 'Precondition'],
  ['steps', 'Steps'],
  ['expected', 'Expected results'],
  ['legacyId', 'Legacy ID'],
];

/** Header words that usually name a field, for the first guess (each guess stays editable). */
const GUESSES: [RegExp, string][] = [
  [/^(title|name|summary|test ?case( name| title)?|case)$/, 'title'],
  [/^(folder|section|path|suite|module|component)$/, 'folder'],
  [/^(priority|prio|importance|severity)$/, 'priority'],
  [/^(tags?|labels?|keywords?)$/, 'tags'],
  [/^(pre-?conditions?|setup|prerequisites?)$/, 'precondition'],
  [/^(steps?|actions?|test steps)$/, 'steps'],
  [/^(expected( results?)?|results?|expected outcome)$/, 'expected'],
  [/^(legacy ?id|id|key|external ?id|ref(erence)?|(test ?)?case ?id|test ?id)$/, 'legacyId'],
];

/** One field per column at most: a later column that guesses a field already taken is left unmapped. */
export function guessMapping(headers: string[], customFields: { systemName: string; name: string }[]) {
  const taken = new Set<string>();
  return headers.map((h) => {
    const key = h.trim().toLowerCase();
    const custom = customFields.find(
      (f) => f.systemName.toLowerCase() === key || f.name.trim().toLowerCase() === key,
    );
    const field = custom ? `customField:${custom.systemName}` : GUESSES.find(([re]) => re.test(key))?.[1];
    if (!field || taken.has(field)) return '';
    taken.add(field);
    return field;
  });
}

export interface Preview {
  headers: string[];
  rows: string[][];
  /** Each row's number in the sheet (a workbook's preview); absent: CSV lines from 2 on. */
  lines?: number[];
}

/** The start of the file is enough for the header and the first rows; it is cut at a line end. */
const HEAD_BYTES = 256 * 1024;
export const PREVIEW_ROWS = 5;

/** The separator found most often outside quotes in the header line, as the service guesses it. */
function guessSeparator(text: string): string {
  let inQuotes = false;
  const counts: Record<string, number> = { ',': 0, ';': 0, '\t': 0 };
  for (const ch of text) {
    if (ch === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (ch === '\n' || ch === '\r')) break;
    else if (!inQuotes && ch in counts) counts[ch]!++;
  }
  const [best, n] = Object.entries(counts).sort((a, b) => b[1] - a[1])[0]!;
  return n > 0 ? best : ',';
}

/** Reads the header row and the first rows in the browser, with the same CSV rules the service applies. */
export async function readPreview(file: File, separator: Separator): Promise<Preview> {
  let text = await file.slice(0, HEAD_BYTES).text();
  if (file.size > HEAD_BYTES) text = text.slice(0, text.lastIndexOf('\n') + 1);
  const delimiter = separator === 'tab' ? '\t' : separator || guessSeparator(text.replace(/^\uFEFF/, ''));
  const records = parse(text, {
    bom: true,
    delimiter,
    relax_column_count: true,
    to: PREVIEW_ROWS + 1,
  }) as string[][];
  const [headers, ...rows] = records;
  if (!headers || headers.every((h) => !h.trim())) throw new Error('the file has no header row');
  return { headers, rows };
}
