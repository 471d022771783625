/**
 * CSV (RFC 4180) for the report exports: one header row, CRLF line ends, a field quoted when it holds a quote,
 * comma or line break. Numbers are written as they are (no locale formatting) and never guarded, so -3 stays a
 * number. Text goes through guardFormulas, as does every CSV the service writes.
 */
export type CsvCell = string | number | boolean | null | undefined;

/*
 * OWASP "CSV injection": a spreadsheet runs a cell starting with `=`, `+`, `-`, `@`, tab or CR as a formula, and
 * one whose list separator is `;` (or that splits on tabs or commas) makes a new cell after each of those, so
 * every part of the text that starts at the beginning or right after `;`, `,` or tab is a cell to guard. Such a
 * part gets a leading `'`; so does one that is already `'`s before such a character, which makes the guard
 * reversible: unguardFormulas takes one `'` off exactly the parts that are `'`s before such a character.
 */
const GUARD = /(?<=^|[;,\t])(?='*[=+\-@\t\r])/g;
const UNGUARD = /(?<=^|[;,\t])'(?='*[=+\-@\t\r])/g;

/** The text with a `'` before every part that a spreadsheet would run as a formula. */
export function guardFormulas(text: string): string {
  return text.replace(GUARD, "'");
}

/** The text guardFormulas was given: for an import of a file the service wrote. */
export function unguardFormulas(text: string): string {
  return text.replace(UNGUARD, '');
}

const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = guardFormulas(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The whole document: the header row, then one row per item. */
export function toCsv(header: readonly string[], rows: Iterable<readonly CsvCell[]>): string {
  const lines = [header.map(csvCell).join(',')];
  for (const row of rows) lines.push(row.map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
