import { beforeAll, expect, it } from 'vitest';
import { createJobRunner } from '../../src/jobs/index.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createTenant } from '../../src/modules/tenants/tenants.service.js';
import { createUser } from '../../src/modules/users/users.service.js';
import { multipart } from '../helpers/import-factories.js';
import { describeEachDb, type TestEnv } from '../helpers/test-app.js';
import {
  generatedEntry,
  repeatedEntry,
  storedEntry,
  textEntry,
  workbookEntries,
  zipOf,
} from '../helpers/zip-bomb.js';

/*
 * An upload never costs the service more than its own budget: files that once took the process down (a 9 MB
 * workbook whose styles inflate to 1,000 MiB) or kept it busy are refused as their own failure, in a worker thread
 * under a heap limit, while another tenant's work goes on.
 */

const MIB = 1024 * 1024;
const BOUNDARY = '----casebook-import-boundary';

interface Tenant {
  host: string;
  key: string;
  code: string;
}

/**
 * The bomb that took the service down: a stored pad of random bytes first (it buys the file's ratio), then styles
 * of `<xf/>` that inflate to 1,000 MiB; its headers say so, or (`lying`) claim 4 KiB.
 */
async function stylesBomb(lying = false): Promise<Buffer> {
  const pad = Buffer.alloc(8 * MIB);
  for (let i = 0; i < pad.length; i += 4) pad.writeUInt32LE((Math.random() * 0xffffffff) >>> 0, i);
  const styles = await repeatedEntry('xl/styles.xml', '<xf/>', 1000 * MIB);
  return zipOf([
    storedEntry('xl/media/pad.bin', pad),
    ...workbookEntries(),
    lying ? { ...styles, declaredSize: 4096 } : styles,
  ]);
}

const refusal = (what: string) => ({
  code: 'VALIDATION_FAILED',
  message: `the .xlsx file is refused: ${what} (a zip bomb, or not a workbook to import)`,
  details: [
    {
      path: '/file',
      message: `the .xlsx file is refused: ${what} (a zip bomb, or not a workbook to import)`,
    },
  ],
});

/** A workbook that passes every zip rule but whose 64 MiB of distinct shared strings the test's budget cannot hold. */
let bombMade: Promise<Buffer> | undefined;
const memoryBomb = () => (bombMade ??= makeMemoryBomb());
async function makeMemoryBomb(): Promise<Buffer> {
  let seed = 1;
  const word = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed.toString(36);
  };
  const strings = await generatedEntry('xl/sharedStrings.xml', 64 * MIB, (i) => {
    const parts: string[] = i === 0 ? ['<?xml version="1.0"?><sst>'] : [];
    for (let n = 0; n < 20_000; n++) parts.push(`<si><t>${word()}${word()}</t></si>`);
    return parts.join('');
  });
  return zipOf([
    ...workbookEntries(),
    textEntry(
      'xl/_rels/workbook.xml.rels',
      '<?xml version="1.0"?><Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>',
    ),
    strings,
    textEntry('xl/worksheets/sheet1.xml', '<worksheet><sheetData/></worksheet>'),
  ]);
}

async function setUpTenant(t: TestEnv, id: string): Promise<Tenant> {
  const host = `${id}.casebook.test`;
  await createTenant(t.db, { id, name: `Tenant ${id}`, host });
  const owner = await createUser(
    t.db,
    id,
    { email: `owner@${id}.example.com`, name: `Owner ${id}`, role: 'owner', password: 'owner-password' },
    true,
  );
  const { key } = await createApiKey(t.db, id, { userId: owner.id, name: 'owner key' });
  const code = id.slice(0, 3).toUpperCase();
  const res = await t.request('POST', '/project', { key, headers: { host }, body: { code, title: id } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { host, key, code };
}

describeEachDb(
  'upload budgets',
  (t) => {
    let alpha: Tenant;
    let beta: Tenant;
    beforeAll(async () => {
      alpha = await setUpTenant(t, 'alpha');
      beta = await setUpTenant(t, 'beta');
    });

    const send = async (
      who: Tenant,
      url: string,
      file: Buffer,
      fields: Record<string, string>,
      name: string,
    ) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/public/v0/project/${who.code}/${url}`,
        headers: {
          host: who.host,
          authorization: `ApiKey ${who.key}`,
          'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        },
        payload: multipart(fields, file, name),
      });
      return { status: res.statusCode, body: JSON.parse(res.body) };
    };
    const preview = (who: Tenant, file: Buffer) => send(who, 'import/preview', file, {}, 'cases.xlsx');
    const startImport = (who: Tenant, file: Buffer, fields: Record<string, string>) =>
      send(who, 'import', file, fields, 'cases.bin');
    const importState = async (who: Tenant, id: number) =>
      (
        await t.request('GET', `/api/public/v0/project/${who.code}/import/${id}`, {
          key: who.key,
          headers: { host: who.host },
        })
      ).body;
    const drain = () => createJobRunner(t.db, t.config, t.app.ctx, { concurrency: 2 }).drain();
    const caseCount = async (who: Tenant) =>
      (
        await t.request('GET', `/api/public/v0/project/${who.code}/tcase`, {
          key: who.key,
          headers: { host: who.host },
        })
      ).body.total;

    it('refuses two styles bombs sent at once to the preview with a 400 naming the part, and goes on serving', async () => {
      const [bomb, lying] = [await stylesBomb(), await stylesBomb(true)];
      expect(bomb.length).toBeLessThan(12 * MIB);
      const [a, b] = await Promise.all([preview(alpha, bomb), preview(alpha, lying)]);
      expect(a).toEqual({
        status: 400,
        body: refusal('"xl/styles.xml" says it inflates to more than 16 MiB'),
      });
      expect(b).toEqual({ status: 400, body: refusal('"xl/styles.xml" holds more than 250000 elements') });
      const projects = await t.request('GET', '/api/public/v0/project', {
        key: beta.key,
        headers: { host: beta.host },
      });
      expect(projects.status).toBe(200);
    });

    it('fails an import of the styles bomb with the reason, and writes nothing', async () => {
      const started = await startImport(alpha, await stylesBomb(true), {
        format: 'xlsx',
        mapping: JSON.stringify({ Summary: 'title', Section: 'folder' }),
      });
      expect(started.status).toBe(202);
      await drain();
      const state = await importState(alpha, started.body.id);
      expect(state).toMatchObject({
        status: 'failed',
        created: 0,
        errors: [
          {
            row: 0,
            message:
              'the .xlsx file is refused: "xl/styles.xml" holds more than 250000 elements (a zip bomb, or not a workbook to import)',
          },
        ],
      });
      expect(await caseCount(alpha)).toBe(0);
    });

    it("answers 413 to a workbook that needs more memory than a parse may use, while another tenant's one-row import finishes", async () => {
      const bomb = await memoryBomb();
      const t0 = performance.now();
      const refused = preview(alpha, bomb).then((answer) => ({ answer, at: performance.now() }));
      // Beta's import while alpha's parse is refused: alpha holds its share of the slots, not all of them.
      const started = performance.now();
      const one = await startImport(beta, Buffer.from('Folder,Name\r\nSmoke,Signs in\r\n'), {
        format: 'qasphere-csv',
      });
      expect(one.status).toBe(202);
      await drain();
      const finished = performance.now();
      expect(await importState(beta, one.body.id)).toMatchObject({ status: 'done', created: 1 });
      const { answer, at } = await refused;
      expect(answer.status).toBe(413);
      expect(answer.body).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        message: `the file is refused: reading the file needs more than the ${t.config.parserMemoryMb} MiB of memory an upload may use`,
      });
      // Beta's import did not wait for alpha's refusal.
      expect(finished).toBeLessThan(at);
      console.info(
        `another tenant's one-row import took ${Math.round(finished - started)} ms; the refusal ${Math.round(at - t0)} ms`,
      );
    }, 180_000);

    it('fails an import whose file needs more memory than a parse may use, with the limit in its error', async () => {
      const started = await startImport(alpha, await memoryBomb(), {
        format: 'xlsx',
        mapping: JSON.stringify({ Summary: 'title', Section: 'folder' }),
      });
      expect(started.status).toBe(202);
      await drain();
      expect(await importState(alpha, started.body.id)).toMatchObject({
        status: 'failed',
        created: 0,
        errors: [
          {
            row: 0,
            message: `the file is refused: reading the file needs more than the ${t.config.parserMemoryMb} MiB of memory an upload may use`,
          },
        ],
      });
    }, 180_000);

    it('reads a large JUnit report in the worker: its results recorded, a malformed one refused with the reason', async () => {
      const req = (
        method: string,
        url: string,
        o: { body?: unknown; headers?: Record<string, string> } = {},
      ) =>
        t.request(method, `/api/public/v0/project/${beta.code}${url}`, {
          key: beta.key,
          body: o.body,
          headers: { host: beta.host, ...o.headers },
        });
      const bulk = await req('POST', '/tcase/bulk', {
        body: { folderPath: ['JUnit'], tcases: [{ title: 'one' }, { title: 'two' }] },
      });
      expect(bulk.status, JSON.stringify(bulk.body)).toBe(201);
      const [one, two] = bulk.body.tcases as { id: string; seq: number }[];
      const run = await req('POST', '/run', {
        body: { title: 'CI', type: 'static_struct', queryPlans: [{ tcaseIds: [one.id, two.id] }] },
      });
      expect(run.status).toBe(201);
      const out = 'log line\n'.repeat(150_000);
      const marker = (seq: number) => `${beta.code}-${String(seq).padStart(3, '0')}`;
      const xml =
        `<testsuite name="s"><testcase name="${marker(one.seq)} one" time="1.5"><system-out>${out}</system-out></testcase>` +
        `<testcase name="${marker(two.seq)} two"><failure message="boom">trace</failure></testcase></testsuite>`;
      expect(xml.length).toBeGreaterThan(MIB);
      const posted = await req('POST', `/run/${run.body.id}/junit`, {
        body: xml,
        headers: { 'content-type': 'application/xml' },
      });
      expect(posted).toMatchObject({ status: 201, body: { results: 2, unmatched: [], created: 0 } });
      const broken = await req('POST', `/run/${run.body.id}/junit`, {
        body: xml.replace('</testsuite>', ''),
        headers: { 'content-type': 'application/xml' },
      });
      expect(broken.status).toBe(400);
      expect(broken.body.code).toBe('VALIDATION_FAILED');
      expect(broken.body.message).toMatch(/testsuite/);
    });
  },
  // The default two parsers, one of a tenant's; a small heap, so that a bomb is refused sooner.
  { env: { CASEBOOK_MULTI_TENANT: 'true', CASEBOOK_PARSER_MEMORY_MB: '64' } },
);
