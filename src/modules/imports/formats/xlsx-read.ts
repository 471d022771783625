import { Transform, type Readable } from 'node:stream';
import type { CellValue } from 'exceljs';
import { Parse } from 'unzipper';
import { UnreadableFile, type CsvRecord } from './csv-read.js';

/*
 * Reading an .xlsx import (extensions.md §7): exceljs's streaming reader, a row at a time, the first worksheet only,
 * each cell as the text a CSV of it would hold. An .xlsx is a zip, so before exceljs reads it `checkXlsx` walks the
 * archive with the zip reader exceljs uses (unzipper: the same entries in the same order) and inflates every entry
 * into nothing, counting: a declared size, the bytes inflated by one entry or in all, or their ratio to the bytes
 * compressed (of the entry, and of the file so far) past a limit refuse the file there. Each entry exceljs reads whole
 * into objects (styles, the workbook, relationships) has a small limit of its own, and the styles a count of
 * elements: exceljs builds an object of each. exceljs would otherwise write worksheets that come before their
 * shared strings to temporary files and keep the shared strings and styles in memory, which a zip bomb turns into a
 * full disk or heap. The parse itself runs in a worker thread with a heap limit (imports.parsing.ts): whatever
 * this misses costs that thread, not the service.
 */

const MIB = 1024 * 1024;

export interface XlsxLimits {
  /** Bytes all entries may inflate to. */
  maxUncompressed: number;
  /** Bytes the shared strings may inflate to: exceljs holds them all in memory while it reads the sheet. */
  maxSharedStrings: number;
  /**
   * Bytes any other entry exceljs reads whole into objects (styles, the workbook, relationships) may inflate to;
   * worksheets are streamed, so only the total bounds them.
   */
  maxModel: number;
  /** Elements in xl/styles.xml: exceljs builds an object of every one (Excel itself allows 64,000 cell formats). */
  maxStyleElements: number;
  /** Inflated bytes per compressed byte, of each entry and of the file read so far, beyond `ratioSlack`. */
  maxRatio: number;
  ratioSlack: number;
}

export const XLSX_LIMITS: XlsxLimits = {
  maxUncompressed: 1024 * MIB,
  maxSharedStrings: 128 * MIB,
  maxModel: 16 * MIB,
  maxStyleElements: 250_000,
  maxRatio: 200,
  ratioSlack: 8 * MIB,
};

const SHARED_STRINGS = 'xl/sharedStrings.xml';
const STYLES = 'xl/styles.xml';
const WORKSHEET = /^xl\/worksheets\/sheet\d+\.xml$/;

/** What one entry may inflate to: exceljs streams worksheets, but reads the others whole. */
function entryMax(path: string, limits: XlsxLimits): number {
  if (path === SHARED_STRINGS) return limits.maxSharedStrings;
  if (WORKSHEET.test(path)) return limits.maxUncompressed;
  if (path.startsWith('xl/') || path.startsWith('_rels/')) return limits.maxModel;
  // Entries exceljs passes over (media, docProps, custom XML) are inflated only to be counted here.
  return limits.maxUncompressed;
}

/** What the zip reader may have read of an entry before the entry begins: a piece and its buffer. */
const READ_AHEAD = 64 * 1024;

const describe = (n: number) => `${Math.round(n / MIB)} MiB`;

/** An error of unzipper or exceljs in words. */
function unreadable(err: unknown): UnreadableFile {
  const message = err instanceof Error ? err.message : String(err);
  const reason = message.startsWith('invalid signature')
    ? 'it is not a zip archive, which every .xlsx is'
    : message === 'FILE_ENDED' || /unexpected end/i.test(message)
      ? 'it ends inside an entry: the file is truncated'
      : message;
  return new UnreadableFile(`the file is not a readable .xlsx workbook: ${reason}`);
}

/**
 * Reads the whole archive without keeping any of it; throws UnreadableFile for a file that is no zip, a truncated
 * one, one without a workbook, or one that inflates past the limits (refused as soon as a count passes one).
 */
export async function checkXlsx(stream: Readable, limits: XlsxLimits = XLSX_LIMITS): Promise<void> {
  let read = 0;
  let inflated = 0;
  let workbook = false;
  // Pieces of at most READ_AHEAD bytes, counted as the zip reader takes them: what was read since an entry began is
  // then its compressed size, within a piece or two, however large the chunks the storage hands over.
  const pieces = new Transform({
    transform(chunk: Buffer, _enc, done) {
      for (let at = 0; at < chunk.length; at += READ_AHEAD) this.push(chunk.subarray(at, at + READ_AHEAD));
      done();
    },
  });
  const counter = new Transform({
    highWaterMark: READ_AHEAD,
    transform(chunk: Buffer, _enc, done) {
      read += chunk.length;
      done(null, chunk);
    },
  });
  const zip = Parse({ forceStream: true });
  // unzipper emits a file that ends too soon as an error event of the archive, which ends neither the entry being
  // read nor the archive's iteration: both are ended with it.
  let current: Readable | undefined;
  zip.on('error', (err) => {
    current?.destroy(err);
    if (!zip.destroyed) zip.destroy(err);
  });
  stream.on('error', (err) => zip.destroy(err));
  stream.pipe(pieces).pipe(counter).pipe(zip);
  const bomb = (what: string) =>
    new UnreadableFile(`the .xlsx file is refused: ${what} (a zip bomb, or not a workbook to import)`);
  try {
    for await (const entry of zip) {
      current = entry;
      // Leaving the loop early destroys the entry with an AbortError nobody listens to any more: it is expected.
      entry.on('error', () => {});
      if (entry.path === 'xl/workbook.xml') workbook = true;
      const max = entryMax(entry.path, limits);
      if (entry.vars.uncompressedSize > max)
        throw bomb(`"${entry.path}" says it inflates to more than ${describe(max)}`);
      // The entry's compressed bytes: what was read since it began, give or take the zip reader's read-ahead (the
      // slack covers it). The header's count is not taken: with a data descriptor it says anything.
      const readAtStart = read;
      const styles = entry.path === STYLES;
      let own = 0;
      let elements = 0;
      for await (const chunk of entry as AsyncIterable<Buffer>) {
        inflated += chunk.length;
        own += chunk.length;
        if (own > max) throw bomb(`"${entry.path}" inflates to more than ${describe(max)}`);
        if (inflated > limits.maxUncompressed)
          throw bomb(`its contents inflate to more than ${describe(limits.maxUncompressed)}`);
        if (inflated > limits.maxRatio * read + limits.ratioSlack)
          throw bomb(`its contents inflate more than ${limits.maxRatio} times`);
        if (own > limits.maxRatio * (read - readAtStart + READ_AHEAD) + limits.ratioSlack)
          throw bomb(`"${entry.path}" inflates more than ${limits.maxRatio} times`);
        if (styles) {
          for (let i = chunk.indexOf(0x3c); i >= 0; i = chunk.indexOf(0x3c, i + 1)) elements++;
          if (elements > limits.maxStyleElements)
            throw bomb(`"${entry.path}" holds more than ${limits.maxStyleElements} elements`);
        }
      }
    }
  } catch (err) {
    if (err instanceof UnreadableFile) throw err;
    throw unreadable(err);
  } finally {
    stream.unpipe(pieces);
    stream.destroy();
    pieces.destroy();
    counter.destroy();
    zip.destroy();
  }
  if (!workbook) throw new UnreadableFile('the file is not an .xlsx workbook: it holds no xl/workbook.xml');
}

/** One cell's value as text: numbers as JavaScript writes them, dates as YYYY-MM-DD (with the time when it has one). */
export function cellText(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.replace('.000Z', 'Z');
  }
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('formula' in value || 'sharedFormula' in value)
    return cellText((value as { result?: CellValue }).result ?? null);
  if ('text' in value && typeof value.text === 'string') return value.text;
  if ('error' in value) return String(value.error);
  return '';
}

/** Yields the rows of the first worksheet (blank rows skipped), numbered as the sheet numbers them. */
export async function* readXlsx(stream: Readable): AsyncGenerator<CsvRecord> {
  // Loaded at the first workbook: exceljs is about 15 MB of heap that a service nobody sends .xlsx never needs.
  const { default: ExcelJS } = await import('exceljs');
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(stream, {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
  });
  try {
    for await (const sheet of reader) {
      for await (const row of sheet) {
        const values = Array.isArray(row.values) ? row.values.slice(1) : [];
        const cells = Array.from(values, (v) => cellText(v ?? null));
        if (cells.every((c) => c.trim() === '')) continue;
        yield { line: row.number, cells };
      }
      return;
    }
  } catch (err) {
    if (err instanceof UnreadableFile) throw err;
    throw unreadable(err);
  } finally {
    stream.destroy();
  }
}
