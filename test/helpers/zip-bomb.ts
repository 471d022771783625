import zlib from 'node:zlib';

/* Zip archives made by hand for the .xlsx guard's tests: entries deflated as they are made, sizes declared at will. */

export interface ZipEntry {
  name: string;
  /** Deflated bytes and what they inflate to. */
  deflated: Buffer;
  size: number;
  crc: number;
  /** The uncompressed size the headers claim (a lie, when it differs from `size`). */
  declaredSize?: number;
  /** Kept as it is (method 0) instead of deflated. */
  stored?: boolean;
}

const MIB = 1024 * 1024;

/**
 * An entry of `text` repeated until `size` bytes: one MiB of it deflated once (a full flush, so the block stands
 * alone) and its compressed bytes repeated, then an empty final block; the CRC is taken a MiB at a time. A 1,000 MiB
 * bomb is made in a second, where deflating it whole takes twenty.
 */
export async function repeatedEntry(name: string, text: string, size: number): Promise<ZipEntry> {
  const unit = Buffer.from(text.repeat(Math.ceil(MIB / text.length)).slice(0, MIB));
  const block = zlib.deflateRawSync(unit, { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const parts: Buffer[] = [];
  let crc = 0;
  for (let done = 0; done < size; done += MIB) {
    const n = Math.min(MIB, size - done);
    const piece =
      n === MIB
        ? block
        : zlib.deflateRawSync(unit.subarray(0, n), { finishFlush: zlib.constants.Z_FULL_FLUSH });
    crc = zlib.crc32(unit.subarray(0, n), crc);
    parts.push(piece);
  }
  // An empty final block with fixed codes: the stream's end.
  parts.push(Buffer.from([0x03, 0x00]));
  return { name, deflated: Buffer.concat(parts), size, crc };
}

/** An entry of `size` bytes made by `chunk(i)` one MiB-ish piece at a time (text that does not repeat), deflated fast. */
export async function generatedEntry(
  name: string,
  size: number,
  chunk: (i: number) => string,
): Promise<ZipEntry> {
  const deflate = zlib.createDeflateRaw({ level: 1 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise((resolve) => deflate.on('end', resolve));
  let crc = 0;
  let done = 0;
  for (let i = 0; done < size; i++) {
    const piece = Buffer.from(chunk(i)).subarray(0, size - done);
    done += piece.length;
    crc = zlib.crc32(piece, crc);
    if (!deflate.write(piece)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await ended;
  return { name, deflated: Buffer.concat(out), size, crc };
}

/** An entry kept as it is (no compression): what buys a bomb its ratio when it comes first. */
export const storedEntry = (name: string, data: Buffer): ZipEntry => ({
  name,
  deflated: data,
  size: data.length,
  crc: zlib.crc32(data),
  stored: true,
});

export const textEntry = (name: string, text: string): ZipEntry => {
  const data = Buffer.from(text);
  return { name, deflated: zlib.deflateRawSync(data), size: data.length, crc: zlib.crc32(data) };
};

/** The archive: local headers with the sizes (declared ones where given), then the central directory. */
export function zipOf(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const size = e.declaredSize ?? e.size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(e.stored ? 0 : 8, 8);
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(e.deflated.length, 18);
    local.writeUInt32LE(Math.min(size, 0xffffffff), 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, e.deflated);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(e.stored ? 0 : 8, 10);
    central.writeUInt32LE(e.crc >>> 0, 16);
    central.writeUInt32LE(e.deflated.length, 20);
    central.writeUInt32LE(Math.min(size, 0xffffffff), 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + e.deflated.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** What a workbook's first entries look like, so the bomb poses as an .xlsx until its worksheet. */
export const workbookEntries = (): ZipEntry[] => [
  textEntry('[Content_Types].xml', '<?xml version="1.0"?><Types/>'),
  textEntry(
    'xl/workbook.xml',
    '<?xml version="1.0"?><workbook><sheets><sheet name="Cases" sheetId="1" r:id="rId1"/></sheets></workbook>',
  ),
];
