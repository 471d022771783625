import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { createProject } from '../helpers/factories.js';
import { runWith } from '../helpers/report-factories.js';
import { createFolder, createTcase } from '../helpers/tcase-factories.js';
import { describeEachDb } from '../helpers/test-app.js';

/*
 * Every CSV the service writes, opened by a real spreadsheet: LibreOffice Calc (headless) converts each file to
 * .xlsx once with `,` and once with `;` as the separator (the list separator of many locales), and no cell of the
 * result may hold a formula. The unguarded export (`?raw=true`) goes through the same conversion and must show
 * formulas, so the check is seen to find them.
 */

const SOFFICE = ['/usr/bin/soffice', '/usr/bin/libreoffice'].find((p) => fs.existsSync(p));
const why = SOFFICE ? undefined : 'LibreOffice Calc is not installed (Debian: libreoffice-calc-nogui)';
const title = 'CSV downloads opened in LibreOffice Calc';
if (why) console.log(`[casebook] ${title}: SKIPPED (${why})`);

const HOSTILE = [
  '=HYPERLINK("http://x","y")',
  "+cmd|' /C calc'!A0",
  '@SUM(1;1)',
  '-2+3',
  'Plain;=2+3;@SUM(1;1)',
  'a,=1+1',
  '\t=1+1',
  'tab\t=3+4',
  "'=5+6",
];

/** The filter options of LibreOffice's CSV import: separator, `"` quotes, UTF-8, from line 1. */
const SEPARATORS = { comma: '44,34,76,1', semicolon: '59,34,76,1' };

/** Each file converted with each separator, in one soffice start per separator (its start-up costs seconds). */
async function openInCalc(files: Record<string, string>): Promise<Map<string, string[]>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-calc-'));
  try {
    const found = new Map<string, string[]>();
    for (const [sep, options] of Object.entries(SEPARATORS)) {
      const out = path.join(dir, `${sep}-out`);
      const inputs = Object.entries(files).map(([name, text]) => {
        const file = path.join(dir, `${sep}-${name}.csv`);
        fs.writeFileSync(file, text);
        return file;
      });
      await promisify(execFile)(
        SOFFICE!,
        [
          `-env:UserInstallation=file://${dir}/profile`,
          '--headless',
          `--infilter=CSV:${options}`,
          '--convert-to',
          'xlsx',
          '--outdir',
          out,
          ...inputs,
        ],
        { timeout: 120_000 },
      );
      for (const name of Object.keys(files)) {
        const book = new ExcelJS.Workbook();
        await book.xlsx.readFile(path.join(out, `${sep}-${name}.xlsx`));
        const formulas: string[] = [];
        book.eachSheet((sheet) =>
          sheet.eachRow((row) =>
            row.eachCell((cell) => {
              if (cell.type === ExcelJS.ValueType.Formula) formulas.push(`${cell.address}: ${cell.formula}`);
            }),
          ),
        );
        found.set(`${name} (${sep})`, formulas);
      }
    }
    return found;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (why) describe.skip(`${title} (SKIPPED: ${why})`, () => it('converts CSVs', () => {}));
else
  describeEachDb(
    title,
    (t) => {
      it('finds no formula in the QA Sphere export, a report or the audit log, split on , or ;', async () => {
        const p = await createProject(t);
        const folderId = await createFolder(t, p.code, ['=SUM(1;2)']);
        const tcases = [];
        for (const text of HOSTILE)
          tcases.push(
            await createTcase(t, p.code, {
              folderId,
              title: text,
              steps: [
                { description: `<p>${text.replaceAll('<', '&lt;')}</p>`, expected: '<p>@SUM(2;2)</p>' },
              ],
            }),
          );
        const runId = await runWith(
          t,
          p,
          tcases.map((c, i) => [c, 'failed', { comment: HOSTILE[i] }]),
        );
        // The audit log keeps the caller's User-Agent and the project's title.
        const audited = await createProject(t, { title: 'Plain;=2+3;@SUM(1;1)' });
        for (const [action, agent] of [
          ['archive', 'Plain;=2+3;@SUM(1;1)'],
          ['unarchive', '=HYPERLINK("http://x","y")'],
        ]) {
          const res = await t.post(`/project/${audited.code}/${action}`, undefined, {
            headers: { 'user-agent': agent },
          });
          expect(res.status).toBe(200);
        }

        const get = async (url: string, query: Record<string, string>) => {
          const res = await t.get(url, { query });
          expect(res.status, res.text).toBe(200);
          expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
          return res.text;
        };
        const files = {
          export: await get(`/project/${p.code}/export`, { format: 'qasphere-csv' }),
          report: await get(`/project/${p.code}/run/${runId}/report`, { format: 'csv' }),
          audit: await get('/audit-logs/export', {}),
          raw: await get(`/project/${p.code}/export`, { format: 'qasphere-csv', raw: 'true' }),
        };
        const found = await openInCalc(files);
        expect(Object.fromEntries(found)).toEqual({
          'export (comma)': [],
          'report (comma)': [],
          'audit (comma)': [],
          'raw (comma)': expect.arrayContaining([expect.stringContaining('HYPERLINK')]),
          'export (semicolon)': [],
          'report (semicolon)': [],
          'audit (semicolon)': [],
          'raw (semicolon)': expect.arrayContaining([expect.stringMatching(/: 2\+3$/)]),
        });
        // The hostile text did reach the files, guarded.
        expect(files.audit).toContain(",Plain;'=2+3;'@SUM(1;1),");
        expect(files.audit).toContain(`"'=HYPERLINK(""http://x"",""y"")"`);
        expect(files.report).toContain("Plain;'=2+3;'@SUM(1;1)");
      }, 180_000);
    },
    // The spreadsheet is the subject here, not the database: one is enough.
    { only: 'sqlite' },
  );
