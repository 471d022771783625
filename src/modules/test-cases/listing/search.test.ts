import { beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject } from '../../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../../test/helpers/tcase-factories.js';
import { readSearchDocs } from '../../../db/search-docs.js';
import * as m0024 from '../../../db/migrations/0024_case_search.js';

/* Full-text search of the test-case list (`q`) on both databases. */

describeEachDb('test case full-text search', (t) => {
  const fx = {} as {
    p: { id: string; code: string };
    folder: number;
    other: number;
    checkout: { id: string; seq: number };
    stepHit: { id: string; seq: number };
    pre: { id: string; seq: number };
    fifth: { id: string; seq: number };
  };
  const search = (q: string, query: Record<string, any> = {}) =>
    t.get(`/project/${fx.p.code}/tcase`, { query: { q, ...query } });
  const titles = (res: { body: { data: { title: string }[] } }) => res.body.data.map((c) => c.title);

  beforeAll(async () => {
    fx.p = await createProject(t, { code: 'SHOP' });
    fx.folder = await createFolder(t, fx.p, ['Search']);
    fx.other = await createFolder(t, fx.p, ['Elsewhere']);
    fx.checkout = await createTcase(t, fx.p, {
      folderId: fx.folder,
      title: 'Checkout with voucher',
      priority: 'high',
      steps: [{ description: '<p>Open the cart</p>', expected: '<p>The total shows</p>' }],
    });
    fx.stepHit = await createTcase(t, fx.p, {
      folderId: fx.other,
      title: 'Cart totals',
      steps: [
        {
          description: '<p>Apply a <strong>voucher</strong> code</p>',
          expected: '<p>Discount &amp; tax recalculated</p>',
        },
      ],
    });
    fx.pre = await createTcase(t, fx.p, {
      folderId: fx.folder,
      title: 'Refunds',
      precondition: { text: '<p>An order paid by <em>banktransfer</em></p>' },
    });
    await createTcase(t, fx.p, { folderId: fx.folder, title: 'Filler four' });
    fx.fifth = await createTcase(t, fx.p, {
      folderId: fx.folder,
      title: 'Café crème für Müller 日本語テスト',
      steps: [{ description: '<p>Step 5 of the flow</p>', expected: '' }],
    });
  });

  it('finds a case by its identifier in any form, first', async () => {
    for (const q of ['SHOP-5', 'shop-005', '5', ' Shop-5 ']) {
      const res = await search(q);
      expect(res.status, q).toBe(200);
      expect(res.body.data[0]?.seq, q).toBe(fx.fifth.seq);
    }
    // Another project's code is just words: nothing here holds "other".
    expect((await search('OTHER-5')).body.total).toBe(0);
  });

  it('finds words of the precondition, the steps and the expected results, not only the title', async () => {
    expect(titles(await search('banktransfer'))).toEqual(['Refunds']);
    expect(titles(await search('recalculated'))).toEqual(['Cart totals']);
    expect(titles(await search('open cart'))).toEqual(['Checkout with voucher']);
    // HTML tags are not words; entities are their characters.
    expect((await search('strong')).body.total).toBe(0);
    expect((await search('amp')).body.total).toBe(0);
  });

  it('ranks a title hit above a step hit, and an explicit sort wins over the rank', async () => {
    const ranked = await search('voucher');
    expect(titles(ranked)).toEqual(['Checkout with voucher', 'Cart totals']);
    expect(ranked.body.total).toBe(2);
    const sorted = await search('voucher', { sortField: 'title', sortOrder: 'asc' });
    expect(titles(sorted)).toEqual(['Cart totals', 'Checkout with voucher']);
  });

  it('matches the last word as a prefix while typing, the others whole', async () => {
    expect(titles(await search('vouch'))).toEqual(['Checkout with voucher', 'Cart totals']);
    expect((await search('vouch code')).body.total).toBe(0);
    expect(titles(await search('voucher co'))).toEqual(['Cart totals']);
  });

  it('combines with the other filters and pages through the ranked list', async () => {
    expect(titles(await search('voucher', { folders: fx.other }))).toEqual(['Cart totals']);
    expect(titles(await search('voucher', { priorities: 'high' }))).toEqual(['Checkout with voucher']);
    const second = await search('voucher', { limit: 1, offset: 1 });
    expect(second.body).toMatchObject({ total: 2, offset: 1, limit: 1 });
    expect(titles(second)).toEqual(['Cart totals']);
    // A page past the last match still says how many there are.
    expect((await search('voucher', { limit: 1, offset: 5 })).body).toMatchObject({ total: 2, data: [] });
    expect((await search('voucher', { limit: 1, offset: 1, priorities: 'high' })).body).toMatchObject({
      total: 1,
      data: [],
    });
    // The named case counts once on page one and is not repeated further on.
    const page2 = await search('5', { limit: 1, offset: 1 });
    expect(page2.body.total).toBe(1 + 0);
    expect(page2.body.data).toEqual([]);
    // `search` stays the title substring.
    expect(titles(await t.get(`/project/${fx.p.code}/tcase`, { query: { search: 'voucher' } }))).toEqual([
      'Checkout with voucher',
    ]);
  });

  it('highlights matching words as escaped HTML with <mark> only', async () => {
    const evil = await createTcase(t, fx.p, {
      folderId: fx.other,
      title: '<img src=x onerror=alert(1)> payload',
      steps: [{ description: '<p>type &lt;script&gt;alert(1)&lt;/script&gt; as payload</p>', expected: '' }],
    });
    const res = await search('payload');
    const hit = res.body.data.find((c: any) => c.id === evil.id);
    expect(hit.highlight.title).toBe('&lt;img src=x onerror=alert(1)&gt; <mark>payload</mark>');
    expect(hit.highlight.text).toBe('type &lt;script&gt;alert(1)&lt;/script&gt; as <mark>payload</mark>');
    const snippet = (await search('voucher')).body.data[1].highlight;
    expect(snippet).toEqual({ text: 'Apply a <mark>voucher</mark> code · Discount &amp; tax recalculated' });
    // Without q, no highlight.
    expect(
      (await t.get(`/project/${fx.p.code}/tcase`)).body.data.every((c: any) => !('highlight' in c)),
    ).toBe(true);
    await t.del(`/project/${fx.p.code}/tcase/${evil.id}`);
  });

  it('matches without diacritics either way, and CJK by the whole run or its beginning', async () => {
    for (const q of ['cafe', 'CAFÉ', 'creme', 'fur muller', 'Müller', '日本語テスト', '日本語']) {
      expect(titles(await search(q)), q).toEqual(['Café crème für Müller 日本語テスト']);
    }
    expect((await search('テスト')).body.total).toBe(0);
    expect((await search('Müller')).body.data[0].highlight.title).toBe(
      'Café crème für <mark>Müller</mark> 日本語テスト',
    );
  });

  it('never fails on input that looks like query syntax', async () => {
    const inputs = [
      '"',
      '"voucher',
      'voucher*',
      '* OR *',
      'voucher OR cart',
      '-voucher',
      'NEAR(a b)',
      "o'brien",
      'a\\b',
      'voucher:*',
      '!(&|)',
      'title:voucher',
      '^voucher',
      '((',
      '',
      '   ',
    ];
    for (const q of inputs) {
      const res = await search(q);
      expect(res.status, JSON.stringify(q)).toBe(200);
    }
    // Operators are words like any other: OR requires "or".
    expect((await search('voucher OR cart')).body.total).toBe(0);
    expect(titles(await search('-voucher'))).toEqual(['Checkout with voucher', 'Cart totals']);
    expect(titles(await search('"voucher" "cart'))).toEqual(['Checkout with voucher', 'Cart totals']);
    // A NUL is refused with a clear error, as everywhere (docs/api-decisions.md#nul-refused-or-removed).
    const nul = await search('a\u0000b');
    expect(nul.status).toBe(400);
    expect(JSON.stringify(nul.body)).toMatch(/q/);
    // Nothing searchable filters nothing.
    expect((await search('"*')).body.total).toBe((await t.get(`/project/${fx.p.code}/tcase`)).body.total);
  });

  it('reflects edits at once and forgets deleted cases', async () => {
    const c = await createTcase(t, fx.p, { folderId: fx.folder, title: 'Wishlist sharing' });
    expect(titles(await search('wishlist'))).toEqual(['Wishlist sharing']);
    const upd = await t.patch(`/project/${fx.p.code}/tcase/${c.id}`, {
      title: 'Favourites sharing',
      steps: [{ description: '<p>Send the zeppelin link</p>', expected: '' }],
    });
    expect(upd.status, JSON.stringify(upd.body)).toBe(200);
    expect((await search('wishlist')).body.total).toBe(0);
    expect(titles(await search('zeppelin'))).toEqual(['Favourites sharing']);
    await t.del(`/project/${fx.p.code}/tcase/${c.id}`);
    expect((await search('zeppelin')).body.total).toBe(0);
    expect((await search('favourites')).body.total).toBe(0);
  });

  it('the index equals a rebuild from the stored cases after every kind of case write', async () => {
    const p = await createProject(t, { code: 'IDX' });
    const f = await createFolder(t, p, ['A']);
    const g = await createFolder(t, p, ['A', 'B']);
    const step = await t.post(`/project/${p.code}/shared-step`, {
      title: 'Log in',
      subSteps: [{ description: '<p>enter the quokka password</p>', expected: '<p>signed in</p>' }],
    });
    expect(step.status, JSON.stringify(step.body)).toBe(201);
    const plain = await createTcase(t, p, {
      folderId: f,
      title: 'Plain',
      steps: [{ sharedStepId: step.body.id }, { description: '<p>own step</p>', expected: '<p>ok</p>' }],
    });
    const tpl = await createTcase(t, p, {
      folderId: f,
      type: 'template',
      title: 'Pay by ${method}',
      steps: [{ description: '<p>pay with ${method}</p>', expected: '' }],
      filledTCaseTitleSuffixParams: ['method'],
      parameterValues: [{ values: { method: 'card' } }, { values: { method: 'cash' } }],
    });
    // A shared step's text is the case's text too.
    expect(titles(await t.get(`/project/${p.code}/tcase`, { query: { q: 'quokka' } }))).toEqual(['Plain']);
    await createTcase(t, p, { folderId: g, title: 'In B' });
    const bulk = await t.post(`/project/${p.code}/tcase/bulk`, {
      folderPath: ['Imported'],
      tcases: [{ title: 'Bulk one' }, { title: 'Bulk two', tags: ['x'] }],
    });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(201);
    const ok = (res: { status: number; body: unknown }) =>
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    ok(await t.patch(`/project/${p.code}/tcase/${plain.id}`, { title: 'Plain edited' }));
    // The template's edit rewrites its filled cases and drops the cash one.
    ok(
      await t.patch(`/project/${p.code}/tcase/${tpl.id}`, {
        steps: [{ description: '<p>pay using ${method} now</p>', expected: '' }],
        parameterValues: [{ tcaseId: await filledId(p.code, 'card'), values: { method: 'card' } }],
      }),
    );
    ok(await t.post(`/project/${p.code}/tcase/bulk/tags`, { tcaseIds: [plain.id], addTags: ['t1'] }));
    ok(await t.post(`/project/${p.code}/tcase/bulk/move`, { tcaseIds: [plain.id], folderId: g }));
    ok(await t.post(`/project/${p.code}/tcase/bulk/delete`, { tcaseIds: [bulk.body.tcases[0].id] }));
    ok(await t.del(`/project/${p.code}/tcase/folder/${g}`, { query: { recursive: true } }));

    const live = await t.db
      .selectFrom('tcases')
      .select('id')
      .where('project_id', '=', p.id)
      .where('deleted_at', 'is', null)
      .execute();
    const all = await t.db.selectFrom('tcases').select('id').where('project_id', '=', p.id).execute();
    expect(live.length).toBeGreaterThan(0);
    expect(all.length).toBeGreaterThan(live.length);
    const rebuilt = await readSearchDocs(
      t.db,
      t.tenantId,
      all.map((r) => r.id),
    );
    const stored = await t.db
      .selectFrom('tcase_search_docs')
      .select(['tenant_id', 'project_id', 'tcase_id', 'title', 'body'])
      .where('project_id', '=', p.id)
      .execute();
    const byId = (rows: { tcase_id: string }[]) =>
      [...rows].sort((a, b) => a.tcase_id.localeCompare(b.tcase_id));
    expect(byId(stored)).toEqual(byId(rebuilt));
    expect(rebuilt.map((d) => d.tcase_id).sort()).toEqual(live.map((r) => r.id).sort());
    // Deleted with its folder; the edited template's filled case answers with its new text.
    expect(titles(await t.get(`/project/${p.code}/tcase`, { query: { q: 'quokka' } }))).toEqual([]);
    expect(titles(await t.get(`/project/${p.code}/tcase`, { query: { q: 'pay using card' } }))).toEqual([
      'Pay by card [card]',
    ]);
  });

  it("migration 0024's backfill indexes the cases that existed before it", async () => {
    // Last in the file: the index is dropped and made again on this database, as an upgrade makes it.
    await m0024.down(t.db);
    await m0024.up(t.db);
    const stored = await t.db.selectFrom('tcase_search_docs').select('tcase_id').execute();
    const live = await t.db.selectFrom('tcases').select('id').where('deleted_at', 'is', null).execute();
    expect(stored.map((r) => r.tcase_id).sort()).toEqual(live.map((r) => r.id).sort());
    expect(titles(await search('banktransfer'))).toEqual(['Refunds']);
    expect(titles(await search('voucher'))).toEqual(['Checkout with voucher', 'Cart totals']);
  });

  async function filledId(code: string, method: string): Promise<string> {
    const res = await t.get(`/project/${code}/tcase`, { query: { types: 'filled' } });
    return res.body.data.find((c: any) => c.title.endsWith(`[${method}]`)).id;
  }
});
