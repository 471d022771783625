import { parse } from 'csv-parse';
import {
  blank,
  customFieldName,
  legacyIdOf,
  mapPriority,
  mapReferences,
  textChunks,
  type TextInput,
} from './testrail-common.js';
import type { ImportedCase, ImportedStep, ParsedItem } from './types.js';

/*
 * TestRail's CSV export of cases: a header row, then one row per case, with the columns the export was asked for —
 * ID (C123), Title, Section, Section Hierarchy (`Checkout > Payment`), Priority, Type, References, Preconditions,
 * Steps and Expected Result (the text template), Steps (Step) and Steps (Expected Result) (the steps template), and
 * custom fields by their labels. Separated steps come either numbered in one cell (`1. …` lines) or one step a row:
 * the rows after a case with no ID and no Title carry its further steps.
 */

/**
 * Columns read for what they are; the export's bookkeeping columns (who, when, forecasts) are left out. The estimate
 * is a custom field (key `estimate`), as in the XML export, so the import's choices for custom fields decide it; a
 * Section Description becomes its folder's comment.
 */
const KNOWN = new Set([
  'id',
  'title',
  'section',
  'section hierarchy',
  'section description',
  'section depth',
  'priority',
  'type',
  'references',
  'preconditions',
  'steps',
  'expected result',
  'steps (step)',
  'steps (expected result)',
  'steps (additional info)',
  'steps (shared step id)',
  'template',
  'forecast',
  'milestone',
  'created by',
  'created on',
  'updated by',
  'updated on',
  'suite',
  'suite id',
]);

export class CsvFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CsvFileError';
  }
}

/** `1. …` lines of a cell, by number, when the cell is such a list (1, 2, 3 … in order); else undefined. */
function numbered(text: string): string[] | undefined {
  const parts = text.split(/\r?\n(?=\s*\d+\.\s)/);
  if (parts.length < 2) return undefined;
  const out: string[] = [];
  for (const [i, p] of parts.entries()) {
    const m = /^\s*(\d+)\.\s+([\s\S]*)$/.exec(p);
    if (!m || Number(m[1]) !== i + 1) return undefined;
    out.push(m[2].trim());
  }
  return out;
}

/** The steps of one row's `Steps (Step)` / `Steps (Expected Result)` cells. */
function rowSteps(step: string, expected: string): ImportedStep[] {
  if (blank(step) && blank(expected)) return [];
  const steps = numbered(step);
  if (!steps) return [{ description: step.trim(), expected: expected.trim() }];
  const results = numbered(expected) ?? [expected.trim()];
  return steps.map((description, i) => ({ description, expected: results[i] ?? '' }));
}

/** The delimiter of a TestRail CSV: `,`, or `;` when the header row has more of those (a European spreadsheet). */
function delimiterOf(firstChunk: string): string {
  const header = firstChunk.split(/\r?\n/, 1)[0];
  return (header.match(/;/g)?.length ?? 0) > (header.match(/,/g)?.length ?? 0) ? ';' : ',';
}

/**
 * Reads a TestRail CSV export, yielding each case (or the reason a row cannot be read) in file order, with the
 * CSV line the case starts on as its row. Throws CsvFileError when the file as a whole cannot be read (broken
 * quoting, no Title column). `delimiter`: the separator when the caller knows it, else read from the header row.
 */
export async function* parseTestRailCsv(input: TextInput, delimiter?: string): AsyncGenerator<ParsedItem> {
  const chunks = textChunks(input);
  const first = await chunks.next();
  if (first.done)
    throw new CsvFileError('the file is empty: a TestRail CSV export starts with its header row');
  const parser = parse({
    delimiter: delimiter ?? delimiterOf(first.value),
    info: true,
    relax_column_count: true,
    skip_empty_lines: true,
  });
  // Feeding and reading run side by side: the parser's back-pressure bounds memory whatever the file's size.
  const drained = () =>
    new Promise((resolve) => {
      parser.once('drain', resolve);
      parser.once('close', resolve);
    });
  const feeding = (async () => {
    try {
      if (!parser.write(first.value)) await drained();
      for await (const chunk of chunks) {
        // The reader stopped (a broken file, or the caller had enough): the rest of the input is not read.
        if (parser.destroyed) return;
        if (!parser.write(chunk)) await drained();
      }
      parser.end();
    } catch (err) {
      parser.destroy(err as Error);
    }
  })();

  let columns: Map<string, number> | undefined;
  let headers: string[] = [];
  let pending: ImportedCase | undefined;
  /** Each folder's Section Description once (every case row of the section repeats it). */
  const described = new Map<string, string>();
  // csv-parse counts a CRLF inside a quoted cell as two lines; its line count is corrected by those seen.
  let crlfInCells = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      const joined = record.join('');
      crlfInCells += joined.match(/\r\n/g)?.length ?? 0;
      const row = info.lines - crlfInCells - (joined.match(/\n/g)?.length ?? 0);
      if (!columns) {
        headers = record.map((h) => h.trim());
        columns = new Map(headers.map((h, i) => [h.toLowerCase(), i]));
        if (!columns.has('title')) {
          throw new CsvFileError(
            `not a TestRail CSV export: the header row (line ${row}) has no Title column (${headers.slice(0, 8).join(', ')})`,
          );
        }
        continue;
      }
      const cell = (name: string) => {
        const i = columns!.get(name);
        return i === undefined ? '' : (record[i] ?? '');
      };
      const steps = rowSteps(cell('steps (step)'), cell('steps (expected result)'));
      if (blank(cell('id')) && blank(cell('title'))) {
        // One step a row: this row continues the case above.
        if (pending && steps.length > 0) (pending.steps ??= []).push(...steps);
        else if (record.some((v) => !blank(v))) {
          yield {
            error: { row, field: 'Title', message: 'the row has no Title (and no case above to continue)' },
          };
        }
        continue;
      }
      if (pending) yield { case: pending };
      pending = undefined;
      const title = cell('title').trim();
      if (title === '') {
        yield { error: { row, field: 'Title', message: `the case ${cell('id').trim()} has no Title` } };
        continue;
      }
      pending = toCase(row, title, cell, headers, record, steps);
      const description = cell('section description').trim();
      const folderKey = JSON.stringify(pending.folderPath);
      if (description !== '' && pending.folderPath.length > 0 && described.get(folderKey) !== description) {
        described.set(folderKey, description);
        yield { folder: { row, folderPath: pending.folderPath, comment: description } };
      }
    }
  } catch (err) {
    if (err instanceof CsvFileError) throw err;
    const e = err as { code?: string; message: string };
    throw new CsvFileError(`malformed CSV: ${e.message}`);
  } finally {
    if (!parser.readableEnded) parser.destroy();
    await feeding;
  }
  if (!columns) throw new CsvFileError('the file is empty: a TestRail CSV export starts with its header row');
  if (pending) yield { case: pending };
}

function toCase(
  row: number,
  title: string,
  cell: (name: string) => string,
  headers: string[],
  record: string[],
  steps: ImportedStep[],
): ImportedCase {
  const hierarchy = cell('section hierarchy').trim() || cell('section').trim();
  const c: ImportedCase = {
    row,
    folderPath: hierarchy === '' ? [] : hierarchy.split(/\s+>\s+/).map((s) => s.trim()),
    title,
    markup: 'markdown',
  };
  const legacyId = legacyIdOf(cell('id'));
  if (legacyId) c.legacyId = legacyId;
  const priority = mapPriority(cell('priority'));
  if (priority) c.priority = priority;
  // TestRail's type (Functional, Regression, …) is a kind of test, not Casebook's standalone/template: a tag.
  if (!blank(cell('type'))) c.tags = [cell('type').trim()];
  const requirements = mapReferences(cell('references'));
  if (requirements) c.requirements = requirements;
  if (!blank(cell('preconditions'))) c.precondition = cell('preconditions').trim();
  if (steps.length > 0) c.steps = steps;
  else if (!blank(cell('steps')) || !blank(cell('expected result'))) {
    // The text template: one step holding the steps and the expected result as written.
    c.steps = [{ description: cell('steps').trim(), expected: cell('expected result').trim() }];
  }
  const customFields: Record<string, string> = {};
  headers.forEach((h, i) => {
    if (!KNOWN.has(h.toLowerCase()) && !blank(record[i]) && h !== '')
      customFields[customFieldName(h)] = record[i].trim();
  });
  if (Object.keys(customFields).length > 0) c.customFields = customFields;
  return c;
}
