import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';

/*
 * Reading any CSV file of an import: csv-parse streaming (a record at a time, never the whole file), a UTF-8 BOM
 * dropped, CRLF or LF, quotes and new lines inside cells, and the separator given or guessed from the header line.
 */

export const SEPARATORS = [',', ';', '\t'] as const;

/** A record of the file with the line it starts on (1-based; the header is line 1 of most files). */
export interface CsvRecord {
  line: number;
  cells: string[];
}

/** The file cannot be read as CSV at all (unclosed quote at the end of a truncated file, bad encoding…). */
export class UnreadableFile extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

/** The separator that occurs most often outside quotes in the header line; a comma when none does. */
export function guessSeparator(head: string): string {
  const firstLine: string[] = [];
  let quoted = false;
  for (const ch of head.replace(/^\uFEFF/, '')) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    firstLine.push(quoted ? '' : ch);
  }
  let best = ',';
  let bestCount = 0;
  for (const sep of SEPARATORS) {
    const count = firstLine.filter((c) => c === sep).length;
    if (count > bestCount) [best, bestCount] = [sep, count];
  }
  return best;
}

/** Yields every record of the stream, empty lines skipped; throws UnreadableFile when the CSV is malformed. */
export async function* readCsv(stream: Readable, separator: string): AsyncGenerator<CsvRecord> {
  const parser = stream.pipe(
    parse({
      bom: true,
      delimiter: separator,
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
    }),
  );
  // csv-parse tells where a record ends; it starts one line after the previous record (blank lines aside).
  let lastEnd = 0;
  let lastEmpty = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number; empty_lines: number };
    }>) {
      const line = lastEnd + 1 + (info.empty_lines - lastEmpty);
      lastEnd = info.lines;
      lastEmpty = info.empty_lines;
      yield { line, cells: record };
    }
  } catch (err) {
    const e = err as { code?: string; message?: string; lines?: number };
    if (typeof e.code === 'string' && e.code.startsWith('CSV_')) {
      const reason =
        e.code === 'CSV_QUOTE_NOT_CLOSED'
          ? 'a quoted cell is never closed: the file is truncated or its quotes are unbalanced'
          : (e.message ?? e.code);
      throw new UnreadableFile(`the file is not valid CSV: ${reason}`, e.lines);
    }
    throw err;
  } finally {
    stream.destroy();
  }
}
