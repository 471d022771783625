import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  RECORDS,
  type ArchiveEnd,
  type ArchiveHeader,
  type ArchiveRecord,
} from './format.js';

/*
 * Reading an archive: its records one at a time from the gzip stream, and the check of the whole archive made
 * before anything is written (header, every record's fields, references to earlier records, the end record's
 * counts). A bad archive fails with an ArchiveError naming the line.
 */

export class ArchiveError extends Error {}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);
/** A line longer than this is not one the exporter writes (file chunks are 256 KiB of base64). */
const MAX_LINE = 4 * 1024 * 1024;

/**
 * What inflating an archive may cost. An archive's JSON lines compress well, but not as well as a bomb: past
 * `maxRatio` inflated bytes per compressed byte (beyond `ratioSlack`) or `maxInflated` in all, reading stops. Lines
 * the exporter never writes (blank ones) are counted too, so no work is skipped without being counted.
 */
export interface InflateLimits {
  maxInflated: number;
  maxRatio: number;
  ratioSlack: number;
  maxBlankLines: number;
}

const MIB = 1024 * 1024;
export const ARCHIVE_LIMITS: InflateLimits = {
  maxInflated: 16 * 1024 * MIB,
  maxRatio: 100,
  ratioSlack: 64 * MIB,
  maxBlankLines: 1000,
};

/** Fails on a stream that does not begin as gzip, before it is inflated; counts the compressed bytes read. */
async function* gzipOnly(src: Readable, count: (n: number) => void): AsyncGenerator<Buffer> {
  let first = true;
  for await (const chunk of src as AsyncIterable<Buffer>) {
    if (first && chunk.length > 0) {
      first = false;
      if (chunk.length < 2 || !chunk.subarray(0, 2).equals(GZIP_MAGIC))
        throw new ArchiveError('not a Casebook archive: the file is not gzip-compressed');
    }
    count(chunk.length);
    yield chunk;
  }
  if (first) throw new ArchiveError('not a Casebook archive: the file is empty');
}

const describeMib = (n: number) => `${Math.round(n / MIB)} MiB`;

/** The lines of a gzip stream, split as they arrive (errors of the source or of inflating end the iteration). */
async function* gzipLines(src: Readable, limits: InflateLimits): AsyncGenerator<string> {
  const gunzip = createGunzip();
  let read = 0;
  let inflated = 0;
  const input = Readable.from(gzipOnly(src, (n) => (read += n)));
  input.on('error', (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  const decoder = new StringDecoder('utf8');
  let rest = '';
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      if (inflated > limits.maxInflated)
        throw new ArchiveError(
          `the archive is refused: it inflates to more than ${describeMib(limits.maxInflated)}`,
        );
      if (inflated > limits.maxRatio * read + limits.ratioSlack)
        throw new ArchiveError(
          `the archive is refused: it inflates more than ${limits.maxRatio} times (a zip bomb, or not an archive Casebook wrote)`,
        );
      rest += decoder.write(chunk);
      let at = rest.indexOf('\n');
      while (at >= 0) {
        yield rest.slice(0, at);
        rest = rest.slice(at + 1);
        at = rest.indexOf('\n');
      }
      if (rest.length > MAX_LINE) throw new ArchiveError('a line longer than any record of an archive');
    }
    rest += decoder.end();
    if (rest !== '') yield rest;
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}

/** The archive's records in order, with their line numbers. */
export async function* archiveRecords(
  src: Readable,
  limits: InflateLimits = ARCHIVE_LIMITS,
): AsyncGenerator<{ line: number; record: ArchiveRecord }> {
  let n = 0;
  let blank = 0;
  try {
    for await (const text of gzipLines(src, limits)) {
      n++;
      if (text.trim() === '') {
        if (++blank > limits.maxBlankLines)
          throw new ArchiveError(
            `the archive is refused: more than ${limits.maxBlankLines} blank lines, which Casebook never writes`,
          );
        continue;
      }
      let record: unknown;
      try {
        record = JSON.parse(text);
      } catch {
        throw new ArchiveError(
          n === 1
            ? 'not a Casebook archive: the first line is not its header'
            : `line ${n}: not a JSON record`,
        );
      }
      if (typeof record !== 'object' || record === null || typeof (record as ArchiveRecord).t !== 'string')
        throw new ArchiveError(
          n === 1
            ? 'not a Casebook archive: the first line is not its header'
            : `line ${n}: a record is a JSON object with its kind in "t"`,
        );
      yield { line: n, record: record as ArchiveRecord };
    }
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'Z_BUF_ERROR' || code === 'Z_DATA_ERROR' || code === 'ERR_STREAM_PREMATURE_CLOSE')
      throw new ArchiveError(`the archive is truncated or damaged after line ${n}`);
    throw err;
  }
}

const isEmail = (v: unknown) => typeof v === 'string' && /^[^\s@]+@[^\s@]+$/.test(v);

function checkField(
  value: unknown,
  type: string,
  seen: Map<string, number>,
  seqs: Set<number>,
): string | undefined {
  const mayBeAbsent = type.endsWith('??');
  const optional = type.endsWith('?');
  const base = type.replace(/\?+$/, '');
  if (value === null || (value === undefined && mayBeAbsent))
    return optional || base === 'e' ? undefined : 'must not be null';
  if (value === undefined) return 'is missing';
  switch (base) {
    case 's':
      return typeof value === 'string' ? undefined : 'must be text';
    case 'n':
      return Number.isSafeInteger(value) ? undefined : 'must be a whole number';
    case 'b':
      return value === 0 || value === 1 ? undefined : 'must be 0 or 1';
    case 'j':
      return typeof value === 'object' ? undefined : 'must be a JSON array or object';
    case 'e':
      return isEmail(value) ? undefined : 'must be an e-mail address or null';
    case 'q':
      return Number.isSafeInteger(value) && seqs.has(value as number)
        ? undefined
        : 'must be the seq of a test case earlier in the archive';
    default: {
      const kind = base.slice(2);
      const count = seen.get(kind) ?? 0;
      return Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= count
        ? undefined
        : `must be the number of a ${kind} record earlier in the archive`;
    }
  }
}

export interface ArchiveSummary {
  header: ArchiveHeader;
  /** Records other than the header and the end. */
  total: number;
  code: string;
  title: string;
}

/** Reads the whole archive and checks it; answers its header and size, or throws an ArchiveError. */
export async function checkArchive(
  src: Readable,
  limits: InflateLimits = ARCHIVE_LIMITS,
): Promise<ArchiveSummary> {
  let header: ArchiveHeader | undefined;
  let end: ArchiveEnd | undefined;
  let project: { code: string; title: string } | undefined;
  const seen = new Map<string, number>();
  const seqs = new Set<number>();
  const people = new Set<string>();
  let total = 0;
  for await (const { line, record } of archiveRecords(src, limits)) {
    if (end) throw new ArchiveError(`line ${line}: records after the end record`);
    if (!header) {
      const h = record as unknown as ArchiveHeader;
      if (h.t !== 'archive' || h.format !== ARCHIVE_FORMAT)
        throw new ArchiveError('not a Casebook archive: the first line is not its header');
      if (h.formatVersion !== ARCHIVE_VERSION)
        throw new ArchiveError(
          `archive format version ${String(h.formatVersion)} is not supported: this Casebook reads version ${ARCHIVE_VERSION}`,
        );
      header = h;
      continue;
    }
    if (record.t === 'end') {
      end = record as unknown as ArchiveEnd;
      continue;
    }
    const fields = RECORDS[record.t];
    if (!fields) throw new ArchiveError(`line ${line}: unknown record kind "${record.t}"`);
    if (record.t === 'project') {
      if (project) throw new ArchiveError(`line ${line}: a second project record`);
    } else if (record.t !== 'person' && !project) {
      throw new ArchiveError(`line ${line}: a ${record.t} record before the project record`);
    }
    for (const [name, type] of Object.entries(fields)) {
      const problem = checkField(record[name], type, seen, seqs);
      if (problem) throw new ArchiveError(`line ${line}: ${record.t}.${name} ${problem}`);
      if (type === 'e' && record[name] !== null && !people.has(record[name] as string))
        throw new ArchiveError(
          `line ${line}: ${record.t}.${name} names a person without a person record before it`,
        );
    }
    if (record.t === 'person') people.add(record.email as string);
    if (record.t === 'project') project = { code: record.code as string, title: record.title as string };
    if (record.t === 'tcase') {
      if (seqs.has(record.seq as number))
        throw new ArchiveError(`line ${line}: a second test case with seq ${String(record.seq)}`);
      seqs.add(record.seq as number);
    }
    seen.set(record.t, (seen.get(record.t) ?? 0) + 1);
    total++;
  }
  if (!header) throw new ArchiveError('not a Casebook archive: it holds no records');
  if (!end) throw new ArchiveError('the archive is truncated: it has no end record');
  if (!project) throw new ArchiveError('the archive holds no project record');
  for (const [kind, count] of Object.entries(end.counts ?? {})) {
    if ((seen.get(kind) ?? 0) !== count)
      throw new ArchiveError(
        `the archive is incomplete: its end record counts ${count} ${kind} records, it holds ${seen.get(kind) ?? 0}`,
      );
  }
  return { header, total, code: project.code, title: project.title };
}
