import { createReadStream, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { XmlFileError } from '../../../lib/xml.js';
import { parseTestRailXml } from './testrail-xml.js';
import { CsvFileError, parseTestRailCsv } from './testrail-csv.js';
import type { ParsedItem } from './types.js';

const path = (name: string) => new URL(`../../../../test/fixtures/testrail/${name}`, import.meta.url);
const text = (name: string) => readFileSync(path(name), 'utf8');

async function all(items: AsyncIterable<ParsedItem>): Promise<ParsedItem[]> {
  const out: ParsedItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A stream of small byte chunks, so that characters and tags are cut between chunks. */
async function* bytesIn(name: string, size: number) {
  const bytes = readFileSync(path(name));
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('TestRail XML export', () => {
  it('reads suites, nested sections, both step templates, priorities, references and custom fields', async () => {
    const read = await all(parseTestRailXml(createReadStream(path('suite-export.xml'))));
    // The suite and each section as a folder row before its cases, with its description as the comment.
    expect(read.filter((i) => 'folder' in i)).toEqual([
      { folder: { row: 1, folderPath: ['Web shop'], comment: 'Regression suite of the web shop' } },
      {
        folder: { row: 1, folderPath: ['Web shop', 'Checkout'], comment: 'Everything from cart to receipt' },
      },
      { folder: { row: 3, folderPath: ['Web shop', 'Checkout', 'Payment, cards & wallets'] } },
      { folder: { row: 3, folderPath: ['Web shop', 'Checkout', 'Payment, cards & wallets', '3-D Secure'] } },
      { folder: { row: 5, folderPath: ['Web shop', '日本語の節'] } },
    ]);
    const items = read.filter((i) => !('folder' in i));
    expect(items).toHaveLength(5);
    expect(items[0]).toEqual({
      case: {
        row: 1,
        folderPath: ['Web shop', 'Checkout'],
        title: 'Pay with a saved card',
        legacyId: 'C1021',
        priority: 'high',
        tags: ['Functional'],
        requirements: [
          { text: 'SHOP-17', url: '' },
          { text: '', url: 'https://jira.example.com/browse/SHOP-18' },
        ],
        precondition: 'A customer **with** a saved Visa card is signed in.',
        // Ordered by <index>, not by file order; CDATA and entities read as text.
        steps: [
          { description: 'Open the cart with 2 items', expected: 'The total is € 24,90' },
          {
            description: 'Choose the saved card and press *Pay*',
            expected: 'The receipt shows "Paid" & the last 4 digits',
          },
          { description: 'Reload the page <F5>', expected: '' },
        ],
        // The estimate rides with the custom fields, whose choices (create, map, leave out) decide it.
        customFields: {
          estimate: '2m',
          automation_type: 'Automated',
          platforms: 'Chrome, Safari',
          reviewed: 'true',
        },
        markup: 'markdown',
      },
    });
    expect(items[1]).toEqual({
      case: {
        row: 2,
        folderPath: ['Web shop', 'Checkout'],
        title: 'Zahlung per Rechnung — Ölfirma „Süd“',
        legacyId: 'C1022',
        priority: 'medium',
        tags: ['Regression'],
        steps: [
          {
            description: '1. Add an item\n2. Choose "Invoice", then confirm',
            expected: 'An invoice PDF is e-mailed',
          },
        ],
        markup: 'markdown',
      },
    });
    expect(items[2]).toEqual({
      case: {
        row: 3,
        folderPath: ['Web shop', 'Checkout', 'Payment, cards & wallets', '3-D Secure'],
        title: 'Challenge flow succeeds',
        legacyId: 'C1023',
        priority: 'low',
        tags: ['Security'],
        requirements: [{ text: 'PAY-3', url: '' }],
        markup: 'markdown',
      },
    });
    expect(items[3]).toEqual({ error: { row: 4, field: 'title', message: 'the case has no <title>' } });
    // A bare id gets its C; a priority TestRail's admin added is passed on for the pipeline to report.
    expect(items[4]).toMatchObject({
      case: {
        row: 5,
        folderPath: ['Web shop', '日本語の節'],
        title: 'カートに追加する 🛒',
        legacyId: 'C1025',
        priority: 'Must Test',
      },
    });
  });

  it('reads the same from chunks that cut characters and tags apart', async () => {
    const whole = await all(parseTestRailXml(text('suite-export.xml')));
    expect(await all(parseTestRailXml(bytesIn('suite-export.xml', 7)))).toEqual(whole);
  });

  it('reads the import format, whose root is <sections>', async () => {
    const xml =
      '<sections><section><name>Login</name><cases><case><id>C2</id><title>Correct password</title></case></cases></section></sections>';
    expect(await all(parseTestRailXml(xml))).toEqual([
      { folder: { row: 1, folderPath: ['Login'] } },
      {
        case: {
          row: 1,
          folderPath: ['Login'],
          title: 'Correct password',
          legacyId: 'C2',
          markup: 'markdown',
        },
      },
    ]);
  });

  it('keeps an empty section as a folder and a description, dedented, as its comment', async () => {
    const xml = `<sections>
      <section><name>Login</name>
        <description>Signing in:
          - with a password
          - with a passkey</description>
        <sections><section><name>Later</name><description/><cases/></section></sections>
      </section>
      <section><name>Empty</name></section>
    </sections>`;
    expect(await all(parseTestRailXml(xml))).toEqual([
      {
        folder: {
          row: 1,
          folderPath: ['Login'],
          comment: 'Signing in:\n- with a password\n- with a passkey',
        },
      },
      { folder: { row: 1, folderPath: ['Login', 'Later'] } },
      { folder: { row: 1, folderPath: ['Empty'] } },
    ]);
  });

  it('refuses a DOCTYPE with entities before expanding any', async () => {
    await expect(all(parseTestRailXml(text('bomb.xml')))).rejects.toThrow(/DOCTYPE declarations are refused/);
  });

  it('refuses a truncated file and another root element', async () => {
    await expect(all(parseTestRailXml(text('truncated.xml')))).rejects.toThrow(XmlFileError);
    await expect(all(parseTestRailXml(text('truncated.xml')))).rejects.toThrow(/^malformed XML: /);
    await expect(all(parseTestRailXml('<testsuites/>'))).rejects.toThrow(/not a TestRail XML export/);
  });
});

describe('TestRail CSV export', () => {
  it('reads a BOM, CRLF lines, quoted cells with commas, quotes and new lines, and reports rows by CSV line', async () => {
    const items = await all(parseTestRailCsv(createReadStream(path('cases-export.csv'))));
    expect(items.map((i) => ('case' in i ? i.case.row : 'error' in i ? i.error.row : 0))).toEqual([
      2, 8, 10, 13, 14, 15,
    ]);
    expect(items[0]).toEqual({
      case: {
        row: 2,
        folderPath: ['Checkout', 'Payment, cards & wallets', '3-D Secure'],
        title: 'Pay with a saved card',
        legacyId: 'C1021',
        priority: 'high',
        tags: ['Functional'],
        requirements: [
          { text: 'SHOP-17', url: '' },
          { text: '', url: 'https://jira.example.com/browse/SHOP-18' },
        ],
        precondition: 'A customer **with** a saved Visa card is signed in.\r\nThe card expires next year.',
        steps: [
          { description: 'Open the cart with 2 items', expected: 'The total is € 24,90' },
          {
            description: 'Choose the saved card and press *Pay*',
            expected: 'The receipt shows "Paid" & the last 4 digits',
          },
          { description: 'Reload the page', expected: '' },
        ],
        customFields: { estimate: '2m', automation_type: 'Automated' },
        markup: 'markdown',
      },
    });
    expect(items[1]).toMatchObject({
      case: {
        folderPath: ['Checkout'],
        title: 'Zahlung per Rechnung — Ölfirma „Süd“',
        priority: 'medium',
        steps: [
          {
            description: '1. Add an item\n2. Choose "Invoice", then confirm',
            expected: 'An invoice PDF is e-mailed',
          },
        ],
        customFields: { automation_type: 'None' },
      },
    });
  });

  it("makes a Section Description its folder's comment, once for the section's rows", async () => {
    const csv = [
      'ID,Title,Section Hierarchy,Section Description',
      'C1,Sign in,Login,"Signing in, **every** way"',
      'C2,Sign out,Login,"Signing in, **every** way"',
      'C3,Pay,Checkout > Cards,',
    ].join('\n');
    expect(
      (await all(parseTestRailCsv(csv))).map((i) => ('folder' in i ? i : 'case' in i ? i.case.row : i)),
    ).toEqual([{ folder: { row: 2, folderPath: ['Login'], comment: 'Signing in, **every** way' } }, 2, 3, 4]);
  });

  it('joins the one-step-a-row layout to the case above', async () => {
    const items = await all(parseTestRailCsv(text('cases-export.csv')));
    expect(items[2]).toMatchObject({
      case: {
        legacyId: 'C1023',
        steps: [
          {
            description: 'Start a payment that needs a challenge',
            expected: "The bank's challenge page opens",
          },
          { description: 'Answer the challenge with the code "123456"', expected: 'The payment completes' },
          { description: 'Open the order history', expected: 'The order is "Paid"' },
        ],
      },
    });
  });

  it('reports a row without a title, keeps a 511-character title and unknown priorities for the pipeline', async () => {
    const items = await all(parseTestRailCsv(bytesIn('cases-export.csv', 5)));
    expect(items[3]).toEqual({ error: { row: 13, field: 'Title', message: 'the case C1024 has no Title' } });
    expect(items[4]).toMatchObject({
      case: { legacyId: 'C1025', title: 'カートに追加する 🛒', priority: 'Must Test' },
    });
    expect(items[5]).toMatchObject({ case: { legacyId: 'C1026', title: 'T'.repeat(511) } });
  });

  it('reads a file with ; separators', async () => {
    expect(await all(parseTestRailCsv(text('cases-semicolon.csv')))).toEqual([
      {
        case: {
          row: 2,
          folderPath: ['Auth', 'Login'],
          title: 'Login; with a semicolon',
          legacyId: 'C7',
          priority: 'high',
          steps: [{ description: 'Open the login page', expected: 'The form shows' }],
          markup: 'markdown',
        },
      },
    ]);
  });

  it('refuses broken quoting, a file without a Title column and an empty file', async () => {
    await expect(all(parseTestRailCsv(text('broken-quote.csv')))).rejects.toThrow(/^malformed CSV: /);
    await expect(all(parseTestRailCsv(text('not-testrail.csv')))).rejects.toThrow(/no Title column/);
    await expect(all(parseTestRailCsv(''))).rejects.toThrow(CsvFileError);
  });
});
