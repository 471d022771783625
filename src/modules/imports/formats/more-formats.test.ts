import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { XmlFileError } from '../../../lib/xml.js';
import { FORMATS, IMPORT_FORMATS } from './formats.js';
import { markdownToHtml } from './markdown.js';
import { JsonFileError, parseQaseJson } from './qase-json.js';
import { dedent } from './testrail-common.js';
import { parseTestLinkXml } from './testlink-xml.js';
import { parseTestRailXml } from './testrail-xml.js';
import type { ParsedItem } from './types.js';
import { parseXrayCsv } from './xray-csv.js';

const file = (name: string) => new URL(`../../../../test/fixtures/imports/${name}`, import.meta.url);

async function all(items: AsyncIterable<ParsedItem>): Promise<ParsedItem[]> {
  const out: ParsedItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}
const cases = (items: ParsedItem[]) => items.flatMap((i) => ('case' in i ? [i.case] : []));
/** A file in small byte chunks, so that characters, tags and tokens are cut between chunks. */
async function* bytesIn(name: string, size: number) {
  const bytes = readFileSync(file(name));
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('import format descriptors', () => {
  it('describe every format once, with a parser', () => {
    expect(Object.keys(FORMATS).sort()).toEqual([...IMPORT_FORMATS].sort());
    for (const id of IMPORT_FORMATS) expect(FORMATS[id]).toMatchObject({ id, parse: expect.any(Function) });
  });
});

describe('TestRail XML text as its author wrote it', () => {
  it('removes the indentation the export adds, keeping the text’s own', () => {
    expect(dedent('\n      # Title\n      - one\n        - nested\n\n      text\n    ')).toBe(
      '# Title\n- one\n  - nested\n\ntext',
    );
    expect(dedent('First line\n          second line\n        ')).toBe('First line\nsecond line');
  });

  it('reads the real exports’ headings, lists, quotes and links as Markdown, none as a code block', async () => {
    const texts: string[] = [];
    for (const name of ['example-excerpt.xml', 'bvt-excerpt.xml']) {
      for (const c of cases(await all(parseTestRailXml(createReadStream(file(`real/testrail-xml/${name}`))))))
        texts.push(c.precondition ?? '', ...(c.steps ?? []).flatMap((s) => [s.description, s.expected]));
    }
    const html = texts.filter((t) => t !== '').map(markdownToHtml);
    expect(html).toHaveLength(22);
    expect(html.filter((h) => h.includes('<pre>'))).toEqual([]);
    const joined = html.join('');
    for (const tag of [
      '<h1>',
      '<h2>',
      '<h3>',
      '<ul>',
      '<ol>',
      '<blockquote>',
      '<a href="http://testrail.com/">',
    ])
      expect(joined).toContain(tag);
  });
});

describe('Qase JSON export', () => {
  it('reads nested suites, steps in position order with their data and nested steps, tags, types, severity and custom fields', async () => {
    const items = await all(parseQaseJson(bytesIn('qase-project.json', 7)));
    const [reset, signIn, signOut, card] = cases(items);
    expect(cases(items).map((c) => [c.row, c.folderPath.join('/'), c.title])).toEqual([
      [1, 'Authentication/Password reset', 'Reset link expires after one hour'],
      [2, 'Authentication', 'Sign in with a valid password'],
      [3, 'Authentication', 'Sign out from every device'],
      [4, 'Checkout', 'Pay by card'],
    ]);
    expect(reset).toMatchObject({
      legacyId: '3',
      priority: 'medium',
      tags: ['email', 'security'],
      customFields: { severity: 'critical', browser: 'Firefox' },
      markup: 'markdown',
    });
    expect(reset.precondition).toBe(
      'The link in the reset e-mail is single-use.\n\nA user with a **verified** e-mail address\n\n**Postconditions**\n\nThe old password no longer works',
    );
    expect(reset.steps?.map((s) => s.description)).toEqual([
      'Request a reset link',
      'Wait 61 minutes, then open the link',
      'Try the link again',
    ]);
    expect(signIn.steps).toEqual([
      { description: 'Type the e-mail and password\n\nData: qa@example.com / secret', expected: '' },
      { description: 'Press **Sign in**', expected: 'The dashboard opens' },
    ]);
    expect(signIn.tags).toEqual(['login', 'smoke']);
    expect(signOut).toEqual({
      row: 3,
      folderPath: ['Authentication'],
      title: 'Sign out from every device',
      legacyId: '2',
      draft: true,
      markup: 'markdown',
    });
    expect(card.customFields).toEqual({ severity: 'normal', browser: 'Chrome' });
    expect(items.at(-1)).toEqual({
      warning: {
        row: 0,
        message: "Qase's behavior, layer, automation have no place in Casebook's test cases: left out",
      },
    });
  });

  it('refuses a file that is not JSON, is cut short, or is no Qase export', async () => {
    const text = readFileSync(file('qase-project.json'), 'utf8');
    await expect(all(parseQaseJson(text.slice(0, 900)))).rejects.toThrow(JsonFileError);
    await expect(all(parseQaseJson('{"suites": [}'))).rejects.toThrow(/not valid JSON/);
    await expect(all(parseQaseJson('{"projects": []}'))).rejects.toThrow(/not a Qase JSON export/);
  });
});

describe('TestLink XML export', () => {
  it('reads the suite, cases in order with HTML steps (an empty step left out), importance as priority and execution type as a tag', async () => {
    const items = await all(parseTestLinkXml(bytesIn('real/testlink-xml/RegressionTestSuite.xml', 11)));
    expect(items[0]).toMatchObject({ warning: { row: 0, field: 'summary' } });
    const [login, main, checkout] = cases(items);
    expect(cases(items).map((c) => [c.row, c.folderPath, c.legacyId, c.title, c.priority, c.tags])).toEqual([
      [1, ['Regression Test Suite'], '1', 'Login Validation - Admin user', 'medium', ['Manual']],
      [2, ['Regression Test Suite'], '2', 'Validate Main page', 'medium', ['Manual']],
      [3, ['Regression Test Suite'], '3', 'Validate checkout', 'medium', ['Manual']],
    ]);
    expect(login.markup).toBe('html');
    expect(login.precondition).toBe(
      '<p>Validate that an administrator user can login successfully and is redirected to the right page.</p><p>Site is up and running.</p>',
    );
    expect(login.steps).toHaveLength(5);
    expect(login.steps?.[2]).toEqual({
      description: '<p>Insert &quot;Admin&quot; in the Username input</p>',
      expected: '<p>The word &quot;Admin&quot; appear in the Username input</p>',
    });
    expect(main.steps).toHaveLength(3);
    expect(checkout.steps).toHaveLength(5);
  });

  it('reads keywords as tags, custom fields and requirements, and nested suites as folders', async () => {
    const xml = `<testsuite name=""><testsuite name="Shop"><testsuite name="Cart">
      <testcase name="Add"><importance>3</importance><execution_type>2</execution_type>
        <keywords><keyword name="smoke"><notes/></keyword></keywords>
        <custom_fields><custom_field><name>Browser Type</name><value>Chrome</value></custom_field></custom_fields>
        <requirements><requirement><doc_id>REQ-7</doc_id><title>Cart</title></requirement></requirements>
      </testcase></testsuite></testsuite></testsuite>`;
    expect(cases(await all(parseTestLinkXml(xml)))).toEqual([
      {
        row: 1,
        folderPath: ['Shop', 'Cart'],
        title: 'Add',
        markup: 'html',
        priority: 'high',
        tags: ['smoke', 'Automated'],
        requirements: [{ text: 'REQ-7: Cart', url: '' }],
        customFields: { browser_type: 'Chrome' },
      },
    ]);
    await expect(all(parseTestLinkXml('<suite/>'))).rejects.toThrow(XmlFileError);
  });
});

describe('Xray test case importer CSV', () => {
  const read = async (name: string) =>
    all(parseXrayCsv(Readable.from(bytesIn(`real/xray-csv/${name}`, 13)), ','));

  it('reads each test of its rows, preconditions and test sets it names, Gherkin and generic definitions, and the repository folder', async () => {
    const items = await read('qase_xray_results.csv');
    const tests = cases(items);
    expect(tests.map((c) => [c.row, c.folderPath.join('/'), c.title, c.steps?.length ?? 0])).toEqual([
      [2, 'Test Repository', 'Performance test', 0],
      [12, 'Login', 'My manual test title', 6],
      [19, 'Login', 'Invalid login', 1],
      [26, 'Listing', 'Validate listing page', 6],
      [49, 'Detail', 'Detail page', 7],
      [56, 'Detail/Promotions', 'Validate promotions', 2],
    ]);
    const manual = tests[1];
    expect(manual.priority).toBe('medium');
    expect(manual.precondition).toBe(
      'Pre conditions\n**Bold**\n*Italic*\n\nBullets:\n\n1. one\n2. two \n3. three',
    );
    // Cells written as JSON strings are read as the text they encode.
    expect(manual.steps?.[0]).toEqual({
      description: 'Click on the login button\n\nData: Data 1',
      expected: 'The login page appear',
    });
    expect(manual.steps?.[5].expected).toContain('| Header 1 | Header2 |');
    expect(tests[2].steps?.[0].description).toMatch(/^```gherkin\nGiven I access the application page\n/);
    expect(tests[2].precondition).toBe('Gherkin pre condition');
  });

  it('names test sets as tags and keeps no precondition or test set row as a case', async () => {
    const tests = cases(await read('RegressionTestSuite.csv'));
    expect(tests.map((c) => [c.row, c.priority, c.tags, c.precondition, c.steps?.length])).toEqual([
      [4, 'high', ['Regression Test Suite'], 'Site is up and running.', 5],
      [
        10,
        'high',
        ['Regression Test Suite'],
        'The application must be executing and available at the expected endpoint',
        3,
      ],
      [15, 'high', ['Regression Test Suite'], 'The application is running  Login operation is working', 5],
    ]);
  });
});
