import zlib from 'node:zlib';
import { expect, it } from 'vitest';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION } from '../../../db/archive/format.js';
import { importArchive, postArchive } from '../../../../test/helpers/archive-factories.js';
import { describeEachDb } from '../../../../test/helpers/test-app.js';

/* An archive upload never costs more than its budget: refused at the upload or by the job, with the reason. */

const MIB = 1024 * 1024;
const header = JSON.stringify({ t: 'archive', format: ARCHIVE_FORMAT, formatVersion: ARCHIVE_VERSION });
const project = JSON.stringify({
  t: 'project',
  code: 'BMB',
  title: 'Bomb',
  overviewTitle: '',
  overviewDescription: '',
  links: [],
  nextTcaseSeq: 1,
  createdBy: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  archivedAt: null,
});

/**
 * A gzip of `head` then `line` repeated until `size` bytes: one MiB of lines deflated once (a full flush, so the
 * block stands alone) and repeated, so a bomb of hundreds of MiB is made in a moment.
 */
function gzipped(head: string, line: string, size: number): Buffer {
  const flush = { finishFlush: zlib.constants.Z_FULL_FLUSH };
  const first = Buffer.from(head);
  const unit = Buffer.from(line.repeat(Math.ceil(MIB / line.length)));
  const parts = [Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]), zlib.deflateRawSync(first, flush)];
  let crc = zlib.crc32(first);
  let length = first.length;
  const block = zlib.deflateRawSync(unit, { ...flush, level: 9 });
  for (; length < size; length += unit.length) {
    parts.push(block);
    crc = zlib.crc32(unit, crc);
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  // An empty final block with fixed codes ends the deflate stream.
  return Buffer.concat([...parts, Buffer.from([0x03, 0x00]), trailer]);
}

describeEachDb('project archive budgets', (t) => {
  it('refuses at the upload an archive of blank lines, with the reason', async () => {
    const blank = gzipped(`${header}\n`, '\n', 64 * MIB);
    const res = await postArchive(t, blank);
    expect(res).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_FAILED',
        message: 'the archive is refused: more than 1000 blank lines, which Casebook never writes',
      },
    });
  });

  it('fails the import of an archive that inflates past its ratio, and creates no project', async () => {
    const person = `${JSON.stringify({ t: 'person', email: 'p@example.com', name: 'P' })}\n`;
    const bomb = gzipped(`${header}\n${project}\n`, person, 200 * MIB);
    expect(bomb.length).toBeLessThan(2 * MIB);
    const done = await importArchive(t, bomb);
    expect(done).toMatchObject({
      status: 'failed',
      error:
        'the archive is refused: it inflates more than 100 times (a zip bomb, or not an archive Casebook wrote)',
    });
    expect((await t.get('/project/BMB')).status).toBe(404);
  });
});
