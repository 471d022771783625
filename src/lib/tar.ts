import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { PassThrough, type Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';

/*
 * A gzip-compressed tar (POSIX ustar) of regular files, enough for the backup archive (src/cli/backup): any `tar`
 * lists and extracts it. Written entry by entry from files on disk; read entry by entry as a stream.
 */

const BLOCK = 512;

/** A file of the archive: its name inside it (`/`-separated, at most 255 characters) and its bytes. */
export type TarEntry = { name: string; file: string } | { name: string; data: Buffer };

/** What was written of an entry. */
export interface TarWritten {
  name: string;
  bytes: number;
  sha256: string;
}

function field(buf: Buffer, offset: number, length: number, text: string): void {
  buf.write(text, offset, length, 'utf8');
}

const octal = (value: number, length: number) => `${value.toString(8).padStart(length - 1, '0')}\0`;

/** Splits a long name into ustar's prefix (155) and name (100) at a `/`. */
function splitName(name: string): [string, string] {
  if (Buffer.byteLength(name) <= 100) return ['', name];
  for (let i = name.length - 1; i > 0; i--) {
    if (name[i] !== '/') continue;
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100) return [prefix, rest];
  }
  throw new Error(`the name "${name}" is too long for a tar entry`);
}

function header(name: string, size: number, mtime: number): Buffer {
  const buf = Buffer.alloc(BLOCK);
  const [prefix, short] = splitName(name);
  field(buf, 0, 100, short);
  field(buf, 100, 8, octal(0o600, 8));
  field(buf, 108, 8, octal(0, 8));
  field(buf, 116, 8, octal(0, 8));
  field(buf, 124, 12, octal(size, 12));
  field(buf, 136, 12, octal(Math.floor(mtime / 1000), 12));
  field(buf, 148, 8, '        ');
  field(buf, 156, 1, '0');
  field(buf, 257, 8, 'ustar\u000000');
  field(buf, 345, 155, prefix);
  let sum = 0;
  for (const byte of buf) sum += byte;
  field(buf, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return buf;
}

/**
 * Writes `entries` into a new gzip-compressed tar at `target` (never over an existing file), then the entry `last`
 * makes from what was written (a manifest of their sizes and sha256); answers what was written.
 */
export async function writeTarGz(
  target: string,
  entries: TarEntry[],
  last?: (written: TarWritten[]) => TarEntry,
): Promise<TarWritten[]> {
  const tar = new PassThrough();
  const done = pipeline(tar, createGzip(), fs.createWriteStream(target, { flags: 'wx', mode: 0o600 }));
  const write = async (chunk: Buffer) => {
    if (!tar.write(chunk)) await once(tar, 'drain');
  };
  const written: TarWritten[] = [];
  const add = async (entry: TarEntry) => {
    const size = 'file' in entry ? fs.statSync(entry.file).size : entry.data.length;
    await write(header(entry.name, size, Date.now()));
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of 'file' in entry ? fs.createReadStream(entry.file) : [entry.data]) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
      await write(chunk as Buffer);
    }
    if (bytes !== size) throw new Error(`${entry.name} changed while it was written into the archive`);
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad > 0) await write(Buffer.alloc(pad));
    written.push({ name: entry.name, bytes, sha256: hash.digest('hex') });
  };
  try {
    for (const entry of entries) await add(entry);
    if (last) await add(last([...written]));
    await write(Buffer.alloc(BLOCK * 2));
    tar.end();
  } catch (err) {
    tar.destroy(err as Error);
  }
  await done;
  return written;
}

/** Reads exactly the bytes asked for from a stream of chunks. */
class ByteReader {
  private buffered: Buffer[] = [];
  private length = 0;

  constructor(private readonly source: AsyncIterator<Buffer>) {}

  /** Up to `max` bytes (at least one), or an empty buffer at the end of the stream. */
  async some(max: number): Promise<Buffer> {
    if (this.length === 0) {
      const next = await this.source.next();
      if (next.done) return Buffer.alloc(0);
      this.buffered.push(next.value);
      this.length += next.value.length;
    }
    const all = Buffer.concat(this.buffered);
    const out = all.subarray(0, Math.min(max, all.length));
    const rest = all.subarray(out.length);
    this.buffered = rest.length > 0 ? [rest] : [];
    this.length = rest.length;
    return out;
  }

  async exactly(n: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let got = 0;
    while (got < n) {
      const part = await this.some(n - got);
      if (part.length === 0) throw new Error('the archive ends in the middle of an entry (truncated?)');
      parts.push(part);
      got += part.length;
    }
    return Buffer.concat(parts);
  }
}

const text = (buf: Buffer, offset: number, length: number) =>
  buf
    .subarray(offset, offset + length)
    .toString('utf8')
    .replace(/\0.*$/s, '');

/**
 * Reads a gzip-compressed tar, calling `onEntry` with each regular file's name, size and bytes (an async
 * iterable that must be read to its end). Fails on a damaged header or a truncated archive.
 */
export async function readTarGz(
  source: Readable,
  onEntry: (name: string, size: number, body: AsyncIterable<Buffer>) => Promise<void>,
): Promise<void> {
  const gunzip = source.pipe(createGunzip());
  source.on('error', (err) => gunzip.destroy(err));
  const reader = new ByteReader((gunzip as AsyncIterable<Buffer>)[Symbol.asyncIterator]());
  for (;;) {
    const block = await reader.exactly(BLOCK);
    if (block.every((b) => b === 0)) return;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i];
    if (parseInt(text(block, 148, 8).trim(), 8) !== sum)
      throw new Error('a damaged tar header (checksum mismatch): not a Casebook backup, or altered');
    const prefix = text(block, 345, 155);
    const name = prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100);
    const size = parseInt(text(block, 124, 12).trim() || '0', 8);
    const type = text(block, 156, 1);
    if (type !== '0' && type !== '') throw new Error(`the archive holds "${name}", which is not a file`);
    let left = size;
    async function* body() {
      while (left > 0) {
        const part = await reader.some(Math.min(left, 64 * 1024));
        if (part.length === 0) throw new Error('the archive ends in the middle of an entry (truncated?)');
        left -= part.length;
        yield part;
      }
    }
    await onEntry(name, size, body());
    // Whatever the caller left unread, then the padding to the next block.
    for await (const chunk of body()) void chunk;
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad > 0) await reader.exactly(pad);
  }
}
