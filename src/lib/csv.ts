/**
 * CSV (RFC 4180) for the report exports: one header row, CRLF line ends, a field quoted when it holds a quote,
 * comma or line break. Numbers are written as they are (no locale formatting). A text cell that starts with
 * `=`, `+`, `-`, `@`, tab or carriage return is prefixed with `'`, so a spreadsheet shows it instead of
 * running it as a formula (OWASP "CSV injection"); numbers are never prefixed, so -3 stays a number.
 */
export type CsvCell = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The whole document: the header row, then one row per item. */
export function toCsv(header: readonly string[], rows: Iterable<readonly CsvCell[]>): string {
  const lines = [header.map(csvCell).join(',')];
  for (const row of rows) lines.push(row.map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
