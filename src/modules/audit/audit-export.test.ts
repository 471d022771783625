import { beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { userWithKey } from '../../../test/helpers/factories.js';
import { AUDIT_CSV_HEADER } from './audit.service.js';

/** "Export CSV" of the audit log page: the filtered events as a streamed CSV download. */
describeEachDb('audit log CSV export', (t) => {
  let other: { id: number; name: string; email: string };
  let userKey: string;

  async function insert(rows: { action: string; userId?: number | null; at: string; meta?: object }[]) {
    const values = rows.map((r) => ({
      tenant_id: t.tenantId,
      user_id: r.userId === undefined ? t.ownerId : r.userId,
      action: r.action,
      ip: '10.0.0.1',
      user_agent: 'curl/8',
      meta: r.meta ? JSON.stringify(r.meta) : null,
      created_at: r.at,
    }));
    for (let i = 0; i < values.length; i += 1000)
      await t.db
        .insertInto('audit_events')
        .values(values.slice(i, i + 1000))
        .execute();
  }
  const exportCsv = (query: Record<string, string | number>, key?: string) =>
    t.get('/audit-logs/export', { query, key });
  const lines = (text: string) => text.split('\r\n').slice(0, -1);

  beforeAll(async () => {
    const made = await userWithKey(t, 'user');
    other = made.user;
    userKey = made.key;
    await insert([
      { action: 'e.old', at: '2022-05-01T08:00:00.000Z' },
      { action: 'e.kept', at: '2022-05-01T09:00:00.000Z', meta: { title: '=HYPERLINK("x")', n: 2 } },
      { action: 'e.kept', userId: other.id, at: '2022-05-01T10:00:00.000Z' },
      { action: 'e.other', at: '2022-05-01T10:30:00.000Z' },
      { action: 'e.kept', userId: null, at: '2022-05-01T11:00:00.000Z' },
      { action: 'e.kept', at: '2022-05-02T00:00:00.000Z' },
    ]);
  });

  it('downloads the events of the filters as CSV, header first, in id order, with the person and details', async () => {
    const res = await exportCsv({
      action: 'e.kept',
      from: '2022-05-01T09:00:00Z',
      to: '2022-05-02T00:00:00Z',
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="audit-log-\d{4}-\d\d-\d\d\.csv"$/,
    );
    const [header, ...rows] = lines(res.text);
    expect(header).toBe(AUDIT_CSV_HEADER.join(','));
    expect(rows).toHaveLength(3);
    const cells = rows.map((r) => r.split(','));
    expect(cells.map((c) => c[1])).toEqual([
      '2022-05-01T09:00:00.000Z',
      '2022-05-01T10:00:00.000Z',
      '2022-05-01T11:00:00.000Z',
    ]);
    expect(cells.every((c) => c[2] === 'e.kept')).toBe(true);
    expect(rows[1]).toContain(`,${other.id},${other.name},${other.email},10.0.0.1,curl/8,`);
    // A system event has no person: its person cells are empty.
    expect(rows[2]).toMatch(/,e\.kept,,,,10\.0\.0\.1,/);
  });

  it('writes the details as JSON in one quoted cell, a formula start escaped like the report CSVs', async () => {
    const res = await exportCsv({
      action: 'e.kept',
      from: '2022-05-01T09:00:00Z',
      to: '2022-05-01T09:00:01Z',
    });
    const row = lines(res.text)[1]!;
    expect(row.endsWith(`,"{""title"":""=HYPERLINK(\\""x\\"")"",""n"":2}"`)).toBe(true);
    const evil = await insertAndExport({ action: '=cmd|calc', at: '2022-06-01T00:00:00.000Z' });
    expect(evil).toContain(",'=cmd|calc,");
  });

  async function insertAndExport(row: { action: string; at: string }) {
    await insert([row]);
    const res = await exportCsv({ action: row.action, from: row.at });
    return lines(res.text)[1]!;
  }

  it("narrows to one person's events and streams more than one read's worth (2,500 events)", async () => {
    const at = '2023-01-01T00:00:00.000Z';
    await insert(
      Array.from({ length: 2500 }, (_, i) => ({
        action: 'bulk.x',
        userId: i % 2 === 0 ? other.id : t.ownerId,
        at,
      })),
    );
    const all = await exportCsv({ action: 'bulk.x', from: at });
    expect(lines(all.text)).toHaveLength(2501);
    const ids = lines(all.text)
      .slice(1)
      .map((r) => Number(r.split(',')[0]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(2500);
    const theirs = await exportCsv({ action: 'bulk.x', from: at, userId: other.id });
    expect(lines(theirs.text)).toHaveLength(1251);
    // Newest first, as the page shows it: the same events, reversed, across the reads' seams.
    const newest = await exportCsv({ action: 'bulk.x', from: at, order: 'desc' });
    expect(
      lines(newest.text)
        .slice(1)
        .map((r) => Number(r.split(',')[0])),
    ).toEqual([...ids].reverse());
  });

  it('answers the header alone when no event matches', async () => {
    const res = await exportCsv({ from: '2999-01-01T00:00:00Z' });
    expect(res.status).toBe(200);
    expect(res.text).toBe(`${AUDIT_CSV_HEADER.join(',')}\r\n`);
  });

  it.each([
    [{ from: 'yesterday' }, '/from'],
    [{ userId: 0 }, '/userId'],
    [{ from: '2022-05-02T00:00:00Z', to: '2022-05-01T00:00:00Z' }, '/to'],
    [{ after: 5 }, '/after'],
  ])('answers 400 in JSON naming the parameter for %o, not a half-written file', async (query, path) => {
    const res = await exportCsv(query);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.details[0].path).toBe(path);
  });

  it('answers 403 to a non-admin', async () => {
    const res = await exportCsv({}, userKey);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });
});
