import { parse } from 'csv-parse/sync';
import { expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { importFile, listCases, pathOf } from '../../../test/helpers/import-factories.js';
import { createFolder, createTcase } from '../../../test/helpers/tcase-factories.js';
import { describeEachDb } from '../../../test/helpers/test-app.js';

/** Text a spreadsheet runs as a formula, in one cell or in the parts other locales split a cell into. */
const HOSTILE = [
  '=HYPERLINK("http://x","y")',
  "+cmd|' /C calc'!A0",
  '@SUM(1;1)',
  '-2+3',
  'Plain;=2+3;@SUM(1;1)',
  'a,=1+1',
  'tab\t=1+1',
  "'=already guarded by hand",
  "''@twice",
  "don't, 'quote' me",
];

/** A part a spreadsheet would start a cell with: at the start or after `;`, `,` or tab, then a formula character. */
const RUNNABLE = /(?:^|[;,\t])[=+\-@\t\r]/;

describeEachDb('imports: the QA Sphere CSV export guarded against formulas', (t) => {
  it('writes no cell part a spreadsheet would run, and importing the file gives back the same text', async () => {
    const a = (await createProject(t)).code;
    const folderId = await createFolder(t, a, ['=SUM(1)', '-Sub;@x']);
    for (const [i, text] of HOSTILE.entries())
      await createTcase(t, a, {
        folderId,
        title: text,
        precondition: { text: `<p>${text.replaceAll('&', '&amp;').replaceAll('<', '&lt;')}</p>` },
        steps: [{ description: `<p>Step ${i};=${i}</p>`, expected: '<p>@SUM(2;2)</p>' }],
      });
    const exported = await t.get(`/project/${a}/export`, { query: { format: 'qasphere-csv' } });
    expect(exported.status).toBe(200);
    const rows: string[][] = parse(exported.text);
    for (const cell of rows.flat()) expect(cell).not.toMatch(RUNNABLE);
    const titles = rows.slice(1).map((r) => r[2]);
    expect(titles).toEqual([
      `'=HYPERLINK("http://x","y")`,
      "'+cmd|' /C calc'!A0",
      "'@SUM(1;1)",
      "'-2+3",
      "Plain;'=2+3;'@SUM(1;1)",
      "a,'=1+1",
      "tab\t'=1+1",
      "''=already guarded by hand",
      "'''@twice",
      "don't, 'quote' me",
    ]);
    expect(rows[1][0]).toBe("'=SUM(1)/-Sub;'@x");
    expect(rows[1].slice(13)).toEqual(["Step 0;'=0", "'@SUM(2;2)"]);

    const b = (await createProject(t)).code;
    expect(await importFile(t, b, Buffer.from(exported.text))).toMatchObject({ status: 'done', errors: [] });
    // Preconditions are left out: their first import is Markdown's one normalisation (links, tabs).
    const shape = (x: any) => [pathOf(x), x.title, x.steps.map((s: any) => [s.description, s.expected])];
    const back = (await listCases(t, b)).map(shape);
    expect(back.map((s) => s[1])).toEqual(HOSTILE);
    expect(back).toEqual((await listCases(t, a)).map(shape));
    expect(back[0][0]).toBe('=SUM(1)/-Sub;@x');
    // The second export is the first (Preconditions aside): the import took exactly the guard off.
    const again = await t.get(`/project/${b}/export`, { query: { format: 'qasphere-csv' } });
    const cells = (text: string) => (parse(text) as string[][]).map((r) => r.filter((_, i) => i !== 10));
    expect(cells(again.text)).toEqual(cells(exported.text));
  });

  it('writes text exactly with raw=true', async () => {
    const a = (await createProject(t)).code;
    const folderId = await createFolder(t, a, ['Raw']);
    for (const text of HOSTILE) await createTcase(t, a, { folderId, title: text });
    const exported = await t.get(`/project/${a}/export`, { query: { format: 'qasphere-csv', raw: 'true' } });
    expect(exported.status).toBe(200);
    const rows: string[][] = parse(exported.text);
    expect(rows.slice(1).map((r) => r[2])).toEqual(HOSTILE);
  });
});
