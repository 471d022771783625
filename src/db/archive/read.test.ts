import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION } from './format.js';
import { ARCHIVE_LIMITS, ArchiveError, checkArchive } from './read.js';

/* What reading an archive may cost: every byte inflated and every line counted, blank ones too. */

const MIB = 1024 * 1024;

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (err: unknown) => (err instanceof ArchiveError ? err.message : `threw ${String(err)}`),
  );

const header = JSON.stringify({ t: 'archive', format: ARCHIVE_FORMAT, formatVersion: ARCHIVE_VERSION });
const person = (i: number) =>
  JSON.stringify({ t: 'person', email: `p${i}@example.com`, name: `Person ${i}` });

describe('reading an archive within its limits', () => {
  it('refuses an archive of blank lines once it has counted a thousand of them', async () => {
    // New lines compress a thousand times: such a file was once read to its end (minutes at the upload limit).
    const blank = gzipSync(Buffer.from(header + '\n' + '\n'.repeat(20 * MIB)), { level: 9 });
    expect(blank.length).toBeLessThan(64 * 1024);
    expect(await refusal(checkArchive(Readable.from([blank])))).toBe(
      'the archive is refused: more than 1000 blank lines, which Casebook never writes',
    );
  });

  it('refuses an archive that inflates more than its ratio allows, whatever its lines hold', async () => {
    const line = `${JSON.stringify({ t: 'person', email: 'a@example.com', name: 'A' })}\n`;
    const bomb = gzipSync(Buffer.from(header + '\n' + line.repeat(Math.ceil((8 * MIB) / line.length))), {
      level: 9,
    });
    const limits = { ...ARCHIVE_LIMITS, ratioSlack: MIB };
    expect(await refusal(checkArchive(Readable.from([bomb]), limits))).toBe(
      'the archive is refused: it inflates more than 100 times (a zip bomb, or not an archive Casebook wrote)',
    );
  });

  it('refuses an archive that inflates past its total, however slowly', async () => {
    const text = Buffer.from([header, ...Array.from({ length: 50_000 }, (_, i) => person(i))].join('\n'));
    const limits = { ...ARCHIVE_LIMITS, maxInflated: MIB };
    expect(await refusal(checkArchive(Readable.from([gzipSync(text)]), limits))).toBe(
      'the archive is refused: it inflates to more than 1 MiB',
    );
  });
});
