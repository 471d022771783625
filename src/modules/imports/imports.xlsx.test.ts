import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import {
  importFile,
  listCases,
  multipart,
  pathOf,
  postImport,
} from '../../../test/helpers/import-factories.js';
import {
  repeatedEntry,
  storedEntry,
  textEntry,
  workbookEntries,
  zipOf,
} from '../../../test/helpers/zip-bomb.js';
import { UnreadableFile } from './formats/csv-read.js';
import { checkXlsx, readXlsx, XLSX_LIMITS } from './formats/xlsx-read.js';

const MIB = 1024 * 1024;
const MAPPING = JSON.stringify({
  Summary: 'title',
  Section: 'folder',
  Labels: 'tags',
  Actions: 'steps',
  Results: 'expected',
  Key: 'legacyId',
  Due: 'precondition',
});

/** A workbook as a person makes one: unicode, new lines in cells, numbers and dates as cells, a second sheet. */
async function workbook(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Cases');
  ws.addRow(['Key', 'Summary', 'Section', 'Labels', 'Actions', 'Results', 'Due']);
  ws.addRow([
    'XL-1',
    'Zahlung mit Überweisung — «Ünïcödé» 支払い 🚀',
    'Checkout/Payments/Bank',
    'payments, smoke',
    '1. Open the basket\n2. Pay by transfer',
    '1. The basket opens\n2. Instructions appear:\nIBAN and BIC',
    new Date(Date.UTC(2024, 1, 29)),
  ]);
  ws.addRow([]);
  ws.addRow([1042, 3.5, 'Numbers', { formula: '1+1', result: 2 }, 'Type 7', 'Seven', 12.25]);
  ws.addRow([
    'XL-3',
    { richText: [{ text: 'Rich ' }, { text: 'text', font: { bold: true } }] },
    'Numbers',
    '',
    '',
    '',
    new Date(Date.UTC(2024, 5, 1, 13, 45)),
  ]);
  ws.getCell('G4').numFmt = '0.00';
  wb.addWorksheet('Notes').addRow(['Summary', 'ignored: only the first sheet is read']);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

async function rows(file: Buffer) {
  const out: { line: number; cells: string[] }[] = [];
  for await (const rec of readXlsx(Readable.from([file]))) out.push(rec);
  return out;
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (err: unknown) => (err instanceof UnreadableFile ? err.message : `threw ${String(err)}`),
  );

describe('.xlsx reading', () => {
  it('reads the first sheet row by row: unicode, new lines, numbers, formulas, rich text and dates as text', async () => {
    const read = await rows(await workbook());
    expect(read.map((r) => r.line)).toEqual([1, 2, 4, 5]);
    expect(read[1].cells).toEqual([
      'XL-1',
      'Zahlung mit Überweisung — «Ünïcödé» 支払い 🚀',
      'Checkout/Payments/Bank',
      'payments, smoke',
      '1. Open the basket\n2. Pay by transfer',
      '1. The basket opens\n2. Instructions appear:\nIBAN and BIC',
      '2024-02-29',
    ]);
    expect(read[2].cells).toEqual(['1042', '3.5', 'Numbers', '2', 'Type 7', 'Seven', '12.25']);
    expect(read[3].cells[1]).toBe('Rich text');
    expect(read[3].cells[6]).toBe('2024-06-01T13:45:00Z');
  });

  it('passes a real workbook through the zip guard', async () => {
    await expect(checkXlsx(Readable.from([await workbook()]))).resolves.toBeUndefined();
  });

  it('refuses an entry that declares more than the limit before inflating it', async () => {
    const bomb = zipOf([
      ...workbookEntries(),
      { ...textEntry('xl/worksheets/sheet1.xml', '<worksheet/>'), declaredSize: 2048 * MIB },
    ]);
    expect(await refusal(checkXlsx(Readable.from([bomb])))).toBe(
      'the .xlsx file is refused: "xl/worksheets/sheet1.xml" says it inflates to more than 1024 MiB (a zip bomb, or not a workbook to import)',
    );
  });

  it('refuses a zip bomb whose headers lie, while inflating it, with memory flat', async () => {
    const sheet = await repeatedEntry('xl/worksheets/sheet1.xml', ' ', 256 * MIB);
    const bomb = zipOf([...workbookEntries(), { ...sheet, declaredSize: 4096 }]);
    expect(bomb.length).toBeLessThan(MIB);
    expect(await refusal(checkXlsx(Readable.from([bomb])))).toBe(
      'the .xlsx file is refused: "xl/worksheets/sheet1.xml" inflates more than 200 times (a zip bomb, or not a workbook to import)',
    );
    // Without the ratio rule 250 MiB are inflated into nothing: the heap does not grow with them (holding them would
    // add 250 MiB; the margin is for a collector that runs late on a loaded machine).
    global.gc?.();
    const before = process.memoryUsage();
    let peak = 0;
    const timer = setInterval(() => {
      const m = process.memoryUsage();
      peak = Math.max(peak, m.heapUsed + m.arrayBuffers - before.heapUsed - before.arrayBuffers);
    }, 5);
    const limits = {
      ...XLSX_LIMITS,
      maxUncompressed: 250 * MIB,
      maxSharedStrings: MIB,
      maxRatio: 1e9,
      ratioSlack: 0,
    };
    expect(await refusal(checkXlsx(Readable.from([bomb]), limits))).toMatch(
      /its contents inflate to more than 250 MiB/,
    );
    clearInterval(timer);
    expect(peak).toBeLessThan(160 * MIB);
  });

  it("refuses styles that exceljs would build whole, however the file's ratio was bought", async () => {
    // A stored pad of random bytes first buys the whole file's ratio; the styles then inflate to 1,000 MiB, and
    // exceljs would build an object of each <xf/>: the heap's end, once.
    const pad = Buffer.alloc(8 * MIB);
    for (let i = 0; i < pad.length; i += 4) pad.writeUInt32LE((Math.random() * 0xffffffff) >>> 0, i);
    const styles = await repeatedEntry('xl/styles.xml', '<xf/>', 1000 * MIB);
    const bomb = (declaredSize?: number) =>
      zipOf([storedEntry('xl/media/pad.bin', pad), ...workbookEntries(), { ...styles, declaredSize }]);
    expect(await refusal(checkXlsx(Readable.from([bomb()])))).toBe(
      'the .xlsx file is refused: "xl/styles.xml" says it inflates to more than 16 MiB (a zip bomb, or not a workbook to import)',
    );
    expect(await refusal(checkXlsx(Readable.from([bomb(4096)])))).toBe(
      'the .xlsx file is refused: "xl/styles.xml" holds more than 250000 elements (a zip bomb, or not a workbook to import)',
    );
    // Under the element count, the size limit of an entry read whole still holds.
    const wide = await repeatedEntry('xl/styles.xml', `<numFmt formatCode="${'0'.repeat(4000)}"/>`, 64 * MIB);
    const file = zipOf([...workbookEntries(), { ...wide, declaredSize: 4096 }]);
    expect(await refusal(checkXlsx(Readable.from([file]), { ...XLSX_LIMITS, maxRatio: 1e9 }))).toBe(
      'the .xlsx file is refused: "xl/styles.xml" inflates to more than 16 MiB (a zip bomb, or not a workbook to import)',
    );
  });

  it('refuses an entry past its own ratio when a stored pad buys the file its ratio, in any size of chunk', async () => {
    const pad = Buffer.alloc(8 * MIB);
    for (let i = 0; i < pad.length; i += 4) pad.writeUInt32LE((Math.random() * 0xffffffff) >>> 0, i);
    const sheet = await repeatedEntry('xl/worksheets/sheet1.xml', '<row/>', 300 * MIB);
    const bomb = zipOf([
      storedEntry('xl/media/pad.bin', pad),
      ...workbookEntries(),
      { ...sheet, declaredSize: 4096 },
    ]);
    const message =
      'the .xlsx file is refused: "xl/worksheets/sheet1.xml" inflates more than 200 times (a zip bomb, or not a workbook to import)';
    // One chunk (a storage that hands the whole file over), and the 64 KiB pieces of a file on disk.
    expect(await refusal(checkXlsx(Readable.from([bomb])))).toBe(message);
    const pieces = Array.from({ length: Math.ceil(bomb.length / 65536) }, (_, i) =>
      bomb.subarray(i * 65536, (i + 1) * 65536),
    );
    expect(await refusal(checkXlsx(Readable.from(pieces)))).toBe(message);
  });

  it('refuses shared strings past their own limit (exceljs keeps them in memory), however well they compress', async () => {
    const strings = await repeatedEntry('xl/sharedStrings.xml', '<si><t>a</t></si>', 200 * MIB);
    expect(await refusal(checkXlsx(Readable.from([zipOf([...workbookEntries(), strings])])))).toBe(
      'the .xlsx file is refused: "xl/sharedStrings.xml" says it inflates to more than 128 MiB (a zip bomb, or not a workbook to import)',
    );
    // Its header lying about its size: refused as it inflates (the ratio rule off, the limit made small).
    const small = await repeatedEntry('xl/sharedStrings.xml', '<si><t>a</t></si>', 4 * MIB);
    const file = zipOf([...workbookEntries(), { ...small, declaredSize: 1000 }]);
    const limits = { ...XLSX_LIMITS, maxSharedStrings: 2 * MIB, maxRatio: 1e9, ratioSlack: 0 };
    expect(await refusal(checkXlsx(Readable.from([file]), limits))).toBe(
      'the .xlsx file is refused: "xl/sharedStrings.xml" inflates to more than 2 MiB (a zip bomb, or not a workbook to import)',
    );
  });

  it('refuses a file that is no zip, a truncated workbook and a zip without a workbook', async () => {
    expect(await refusal(checkXlsx(Readable.from([Buffer.from('Summary,Section\r\nA,B\r\n')])))).toBe(
      'the file is not a readable .xlsx workbook: it is not a zip archive, which every .xlsx is',
    );
    const file = await workbook();
    for (const cut of [0.3, 0.5, 0.9])
      expect(await refusal(checkXlsx(Readable.from([file.subarray(0, Math.round(file.length * cut))])))).toBe(
        'the file is not a readable .xlsx workbook: it ends inside an entry: the file is truncated',
      );
    const noBook = zipOf([textEntry('word/document.xml', '<document/>')]);
    expect(await refusal(checkXlsx(Readable.from([noBook])))).toBe(
      'the file is not an .xlsx workbook: it holds no xl/workbook.xml',
    );
  });
});

describeEachDb('imports: Excel (.xlsx) with a mapping', (t) => {
  it('imports the first sheet by the mapping, cells as text, rows numbered as in the sheet', async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, await workbook(), { format: 'xlsx', mapping: MAPPING });
    expect(result).toMatchObject({ status: 'done', created: 3, updated: 0, errors: [] });
    const [transfer, numbers, rich] = await listCases(t, p);
    expect(transfer).toMatchObject({
      title: 'Zahlung mit Überweisung — «Ünïcödé» 支払い 🚀',
      legacyId: 'XL-1',
    });
    expect(pathOf(transfer)).toBe('Checkout/Payments/Bank');
    expect(transfer.tags.map((g: any) => g.title)).toEqual(['payments', 'smoke']);
    expect(transfer.steps.map((s: any) => [s.description, s.expected])).toEqual([
      ['<p>Open the basket</p>', '<p>The basket opens</p>'],
      ['<p>Pay by transfer</p>', '<p>Instructions appear:</p><p>IBAN and BIC</p>'],
    ]);
    expect(transfer.precondition.text).toBe('<p>2024-02-29</p>');
    expect(numbers).toMatchObject({ title: '3.5', legacyId: '1042' });
    expect(numbers.tags.map((g: any) => g.title)).toEqual(['2']);
    expect(rich.title).toBe('Rich text');
    // The same workbook again changes nothing.
    const again = await importFile(t, p, await workbook(), { format: 'xlsx', mapping: MAPPING });
    expect(again).toMatchObject({ status: 'done', created: 0, updated: 0 });
  });

  it('reports bad rows by their sheet row and imports nothing', async () => {
    const p = (await createProject(t)).code;
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Cases');
    ws.addRow(['Summary', 'Section']);
    ws.addRow(['Fine', 'A']);
    ws.addRow([]);
    ws.addRow(['', 'A']);
    const file = Buffer.from(await wb.xlsx.writeBuffer());
    const result = await importFile(t, p, file, {
      format: 'xlsx',
      mapping: JSON.stringify({ Summary: 'title', Section: 'folder' }),
    });
    expect(result.status).toBe('failed');
    // The message too, so that a failure says what went wrong (once, under load on PostgreSQL, this import ended
    // with a single error of row 0 instead; it did not come back in four runs since).
    expect(result.errors.map((e: any) => [e.row, e.field, e.message])).toEqual([
      [4, 'title', expect.any(String)],
    ]);
    expect(await listCases(t, p)).toEqual([]);
  });

  it('fails a zip bomb posing as .xlsx with a clear error and writes nothing', async () => {
    const p = (await createProject(t)).code;
    const sheet = await repeatedEntry('xl/worksheets/sheet1.xml', '<row/>', 64 * MIB);
    const bomb = zipOf([...workbookEntries(), { ...sheet, declaredSize: 900 }]);
    const result = await importFile(t, p, bomb, { format: 'xlsx', mapping: MAPPING });
    expect(result).toMatchObject({ status: 'failed', created: 0 });
    // The sheet's own ratio or the file's, whichever the reader's read-ahead lets it see first (it varies with load).
    expect(result.errors).toEqual([
      {
        row: 0,
        message: expect.stringMatching(
          /^the \.xlsx file is refused: ("xl\/worksheets\/sheet1\.xml" inflates|its contents inflate) more than 200 times \(a zip bomb, or not a workbook to import\)$/,
        ),
      },
    ]);
    expect(await listCases(t, p)).toEqual([]);
    expect((await t.get(`/project/${p}/tcase/folders`)).body.data).toEqual([]);
  });

  it("previews the first sheet's header and first rows as the import reads them, and refuses what is no workbook", async () => {
    const p = (await createProject(t)).code;
    const imports = async () => (await t.db.selectFrom('imports').select('id').execute()).length;
    const before = await imports();
    const preview = async (file: Buffer) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/public/v0/project/${p}/import/preview`,
        headers: {
          authorization: `ApiKey ${t.ownerKey}`,
          'content-type': 'multipart/form-data; boundary=----casebook-import-boundary',
        },
        payload: multipart({}, file, 'cases.xlsx'),
      });
      return { status: res.statusCode, body: JSON.parse(res.body) };
    };
    const ok = await preview(await workbook());
    expect(ok.status).toBe(200);
    expect(ok.body.headers).toEqual(['Key', 'Summary', 'Section', 'Labels', 'Actions', 'Results', 'Due']);
    expect(ok.body.rows.map((r: string[]) => r[1])).toEqual([
      'Zahlung mit Überweisung — «Ünïcödé» 支払い 🚀',
      '3.5',
      'Rich text',
    ]);
    expect(ok.body.rows[0][6]).toBe('2024-02-29');
    // Row 3 is blank: the sheet's own numbers.
    expect(ok.body.lines).toEqual([2, 4, 5]);
    const csv = await preview(Buffer.from('Summary,Section\r\nA,B\r\n'));
    expect(csv).toMatchObject({
      status: 400,
      body: {
        message: 'the file is not a readable .xlsx workbook: it is not a zip archive, which every .xlsx is',
      },
    });
    const sheet = await repeatedEntry('xl/worksheets/sheet1.xml', '<row/>', 64 * MIB);
    const bomb = await preview(zipOf([...workbookEntries(), { ...sheet, declaredSize: 900 }]));
    expect(bomb.status).toBe(400);
    // Which ratio trips first (the entry's or the whole file's) depends on how far the zip reader has read ahead.
    expect(bomb.body.message).toMatch(
      /^the .xlsx file is refused: ("xl\/worksheets\/sheet1.xml" inflates|its contents inflate) more than 200 times/,
    );
    // A preview starts no import.
    expect(await imports()).toBe(before);
  });

  it('refuses an xlsx without a mapping or with a separator, and fails a CSV sent as xlsx', async () => {
    const p = (await createProject(t)).code;
    const file = await workbook();
    const noMapping = await postImport(t, p, { format: 'xlsx' }, file);
    expect(noMapping).toMatchObject({
      status: 400,
      body: { message: 'format xlsx needs a mapping of its columns' },
    });
    const sep = await postImport(t, p, { format: 'xlsx', mapping: MAPPING, separator: ';' }, file);
    expect(sep).toMatchObject({
      status: 400,
      body: { message: 'separator is for CSV files; xlsx is a workbook' },
    });
    const csv = await importFile(t, p, Buffer.from('Summary,Section\r\nA,B\r\n'), {
      format: 'xlsx',
      mapping: MAPPING,
    });
    expect(csv.status).toBe('failed');
    expect(csv.errors).toEqual([
      {
        row: 0,
        message: 'the file is not a readable .xlsx workbook: it is not a zip archive, which every .xlsx is',
      },
    ]);
  });
});
