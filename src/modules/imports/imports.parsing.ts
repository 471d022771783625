import type { Readable } from 'node:stream';
import { AppError } from '../../errors.js';
import {
  IsolatedError,
  IsolationLimit,
  requestSlot,
  runIsolated,
  type Parsers,
} from '../../lib/isolated/run.js';
import type { Slot } from '../../lib/isolated/slots.js';
import { UnreadableFile, type CsvRecord } from './formats/csv-read.js';
import { FORMATS, type ParseOptions } from './formats/formats.js';
import type { ParsedItem } from './formats/types.js';

/*
 * Every read of an uploaded import file goes through here: the parsers run in a worker thread (formats/
 * parse.worker.ts) under the process's budget (lib/isolated), a bounded number at once, one tenant's never all of
 * them. What the worker throws comes back as the import's own errors: a file it cannot read, or one that needs more
 * memory or time than an upload may use, is an UnreadableFile that fails its own import and nothing else.
 */

const WORKER = new URL('./formats/parse.worker.js', import.meta.url);

export type { ParseOptions };

/** Whatever the worker threw, as the import's errors. */
function mapped(err: unknown): unknown {
  if (err instanceof IsolationLimit) return new UnreadableFile(`the file is refused: ${err.message}`);
  if (err instanceof IsolatedError) {
    if (err.errorName === 'UnreadableFile') {
      const line = err.props.line;
      return new UnreadableFile(err.message, typeof line === 'number' ? line : undefined);
    }
    return new Error(`reading the file failed: ${err.message}`);
  }
  return err;
}

/** A slot of the tenant's, waited for with `alive` called every few seconds (a job keeps its lease meanwhile). */
async function slotFor(parsers: Parsers, tenantId: string, alive: () => Promise<void>): Promise<Slot> {
  for (;;) {
    const slot = await parsers.slots.acquire(tenantId, 5_000);
    if (slot) return slot;
    await alive();
  }
}

/**
 * The items of an import file, read in a worker. `check`: an .xlsx is first inflated into nothing, its zip guard
 * applied, before its rows are read (the first reading of an import; the second reads a file already checked).
 */
export async function* parseIsolated(
  parsers: Parsers,
  tenantId: string,
  open: () => Promise<Readable>,
  options: ParseOptions,
  o: { check: boolean; alive: () => Promise<void> },
): AsyncGenerator<ParsedItem> {
  const slot = await slotFor(parsers, tenantId, o.alive);
  try {
    const run = async (task: string) =>
      runIsolated<ParsedItem>({ script: WORKER, task, options, input: await open(), budget: parsers.budget });
    if (o.check && FORMATS[options.format].zipGuard) for await (const _ of await run('xlsx-check'));
    yield* await run('items');
  } catch (err) {
    throw mapped(err);
  } finally {
    slot.release();
  }
}

/** The first `rows` rows of an .xlsx (zip guard first), for a person at the Import page: a 429 when all are busy. */
export async function previewXlsxRows(
  parsers: Parsers,
  tenantId: string,
  open: () => Promise<Readable>,
  rows: number,
): Promise<CsvRecord[]> {
  const slot = await requestSlot(parsers, tenantId, 'try the preview again');
  try {
    const run = async (task: string) =>
      runIsolated<CsvRecord>({ script: WORKER, task, input: await open(), budget: parsers.budget });
    for await (const _ of await run('xlsx-check'));
    const records: CsvRecord[] = [];
    for await (const rec of await run('xlsx-rows')) {
      records.push(rec);
      if (records.length >= rows) break;
    }
    return records;
  } catch (err) {
    if (err instanceof IsolationLimit)
      throw new AppError(
        err.limit === 'memory' ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_FAILED',
        `the file is refused: ${err.message}`,
        [{ path: '/file', message: err.message }],
      );
    throw mapped(err);
  } finally {
    slot.release();
  }
}
