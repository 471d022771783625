import { CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { userWithKey } from '../../../test/helpers/factories.js';
import { eventsPageQuery } from './audit.repository.js';

/** The audit log's filters: action, person and time span narrow the contract's pages. */
describeEachDb('audit log filters', (t) => {
  let other: number;

  /** Inserts events straight into the table, in the order given (ids grow with it). */
  async function insert(rows: { action: string; userId?: number | null; at?: string }[]) {
    const values = rows.map((r) => ({
      tenant_id: t.tenantId,
      user_id: r.userId === undefined ? t.ownerId : r.userId,
      action: r.action,
      ip: '1.2.3.4',
      user_agent: 'ua',
      meta: null,
      created_at: r.at ?? new Date().toISOString(),
    }));
    for (let i = 0; i < values.length; i += 1000)
      await t.db
        .insertInto('audit_events')
        .values(values.slice(i, i + 1000))
        .execute();
  }
  const lastId = async () =>
    Number(
      (await t.db.selectFrom('audit_events').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst())
        ?.id ?? 0,
    );
  const page = (query: Record<string, string | number | Array<string | number>>) =>
    t.get('/audit-logs', { query });
  const actions = (res: { body: { events: { action: string }[] } }) => res.body.events.map((e) => e.action);

  beforeAll(async () => {
    other = (await userWithKey(t, 'user')).user.id;
  });

  describe('GET /audit-logs?action=', () => {
    it('answers only the named actions, in id order, as one value, a comma list or repeated keys', async () => {
      const start = await lastId();
      await insert(['f.a', 'f.b', 'f.c', 'f.a', 'f.b', 'f.c'].map((action) => ({ action })));
      const one = await page({ after: start, action: 'f.b' });
      expect(one.status).toBe(200);
      expect(one.body).toEqual({
        after: start + 5,
        count: 2,
        events: [
          expect.objectContaining({
            id: start + 2,
            action: 'f.b',
            user: expect.objectContaining({ id: t.ownerId }),
          }),
          expect.objectContaining({ id: start + 5, action: 'f.b' }),
        ],
      });
      const comma = await page({ after: start, action: 'f.c,f.a' });
      expect(comma.body.events.map((e: { id: number }) => e.id)).toEqual([
        start + 1,
        start + 3,
        start + 4,
        start + 6,
      ]);
      expect((await page({ after: start, action: ['f.a', 'f.c'] })).body).toEqual(comma.body);
      expect(actions(await page({ after: start, action: 'f.none' }))).toEqual([]);
    });

    it('pages through the filtered events with after and count, each page the next ones', async () => {
      const start = await lastId();
      await insert(Array.from({ length: 9 }, (_, i) => ({ action: i % 3 === 0 ? 'p.kept' : 'p.other' })));
      const first = await page({ after: start, action: 'p.kept,p.rare', count: 2 });
      expect(first.body.events.map((e: { id: number }) => e.id)).toEqual([start + 1, start + 4]);
      expect(first.body.after).toBe(start + 4);
      const second = await page({ after: first.body.after, action: 'p.kept,p.rare', count: 2 });
      expect(second.body).toMatchObject({ after: start + 7, count: 1 });
      const done = await page({ after: second.body.after, action: 'p.kept,p.rare', count: 2 });
      expect(done.body).toEqual({ after: start + 7, count: 0, events: [] });
    });
  });

  describe('GET /audit-logs?order=desc', () => {
    it('answers the newest first and pages backwards with before, neither skipping nor repeating an event', async () => {
      const start = await lastId();
      await insert(Array.from({ length: 7 }, (_, i) => ({ action: i % 2 === 0 ? 'd.even' : 'd.odd' })));
      const all = await page({ after: start, order: 'desc' });
      expect(all.status).toBe(200);
      expect(all.body.events.map((e: { id: number }) => e.id)).toEqual(
        [7, 6, 5, 4, 3, 2, 1].map((i) => start + i),
      );
      expect(all.body.after).toBe(start + 1);
      // Two actions merged newest first, two at a time; each page continues below the answer's after.
      const seen: number[] = [];
      let before: number | undefined;
      for (let i = 0; i < 5; i++) {
        const res = await page({
          after: start,
          order: 'desc',
          action: 'd.even,d.odd',
          count: 2,
          ...(before ? { before } : {}),
        });
        expect(res.status).toBe(200);
        if (res.body.count === 0) break;
        seen.push(...res.body.events.map((e: { id: number }) => e.id));
        before = res.body.after;
      }
      expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1].map((i) => start + i));
      // before also narrows an ascending page.
      const below = await page({ after: start, before: start + 3 });
      expect(below.body.events.map((e: { id: number }) => e.id)).toEqual([start + 1, start + 2]);
    });

    it('reads the span from its newest event down to from, to exclusive', async () => {
      await insert([
        { action: 'o.last-year', at: '2020-01-01T00:00:00.000Z' },
        { action: 'o.span', at: '2020-02-01T00:00:00.000Z' },
        { action: 'o.span', at: '2020-02-02T00:00:00.000Z' },
      ]);
      const span = await page({
        order: 'desc',
        action: 'o.last-year,o.span',
        from: '2020-01-15T00:00:00Z',
        to: '2020-02-02T00:00:00Z',
      });
      expect(span.body.events.map((e: { createdAt: string }) => e.createdAt)).toEqual([
        '2020-02-01T00:00:00.000Z',
      ]);
    });
  });

  describe('GET /audit-logs?userId=', () => {
    it("answers only that person's events, alone or with actions; system events have no person", async () => {
      const start = await lastId();
      await insert([
        { action: 'u.login', userId: other },
        { action: 'u.login' },
        { action: 'u.logout', userId: other },
        { action: 'u.login', userId: null },
      ]);
      const theirs = await page({ after: start, userId: other });
      expect(theirs.status).toBe(200);
      expect(theirs.body.events.map((e: { id: number; user: { id: number } }) => [e.id, e.user.id])).toEqual([
        [start + 1, other],
        [start + 3, other],
      ]);
      expect(actions(await page({ after: start, userId: other, action: 'u.logout' }))).toEqual(['u.logout']);
      expect(actions(await page({ after: start, userId: t.ownerId, action: 'u.logout' }))).toEqual([]);
    });
  });

  describe('GET /audit-logs?from=&to=', () => {
    it('answers the events of the span, from inclusive and to exclusive; with after 0 it starts at from', async () => {
      await insert([
        { action: 's.before', at: '2021-03-01T09:59:59.999Z' },
        { action: 's.first', at: '2021-03-01T10:00:00.000Z' },
        { action: 's.second', at: '2021-03-01T11:00:00.000Z' },
        { action: 's.after', at: '2021-03-01T12:00:00.000Z' },
      ]);
      const span = { from: '2021-03-01T10:00:00.000Z', to: '2021-03-01T12:00:00.000Z' };
      // Those events are of an earlier month: D13's start would skip them; `from` reaches back.
      const res = await page({ ...span, action: 's.before,s.first,s.second,s.after' });
      expect(res.status).toBe(200);
      expect(actions(res)).toEqual(['s.first', 's.second']);
      // A time with an offset is the same instant.
      const offset = await page({
        from: '2021-03-01T11:30:00+01:30',
        action: 's.before,s.first,s.second,s.after',
      });
      expect(actions(offset)).toEqual(['s.first', 's.second', 's.after']);
      const late = await page({ from: '2999-01-01T00:00:00Z' });
      expect(late.body).toEqual({ after: 0, count: 0, events: [] });
    });
  });

  describe('bad filters', () => {
    it.each([
      [{ action: '' }, '/action'],
      [{ action: 'x'.repeat(65) }, '/action/0'],
      [{ action: Array.from({ length: 21 }, (_, i) => `a${i}`).join(',') }, '/action'],
      [{ userId: 0 }, '/userId'],
      [{ userId: 'me' }, '/userId'],
      [{ from: 'yesterday' }, '/from'],
      [{ to: '2021-13-01T00:00:00Z' }, '/to'],
      [{ from: '2021-03-02T00:00:00Z', to: '2021-03-01T00:00:00Z' }, '/to'],
      [{ from: '2021-03-01T00:00:00Z', to: '2021-03-01T00:00:00Z' }, '/to'],
      [{ order: 'newest' }, '/order'],
      [{ before: 0 }, '/before'],
    ])('answers 400 naming the parameter for %o', async (query, path) => {
      const res = await page(query);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.details[0].path).toBe(path);
    });
  });

  describe('the query plan of a filtered page', () => {
    const plan = async (filter: Parameters<typeof eventsPageQuery>[2]) => {
      const q = eventsPageQuery(t.db, t.tenantId, filter).compile();
      const explain = t.dbName === 'postgres' ? 'explain ' : 'explain query plan ';
      const res = await t.db.executeQuery(CompiledQuery.raw(explain + q.sql, [...q.parameters]));
      return res.rows.map((r) => Object.values(r as Record<string, unknown>).join(' ')).join('\n');
    };

    it('reads a page of 100 of 30,000 events through the action and person indexes, never the whole table', async () => {
      const rows = Array.from({ length: 30_000 }, (_, i) => ({
        action: i % 100 === 0 ? 'x.rare' : i % 7 === 0 ? 'x.mid' : 'x.common',
        userId: i % 50 === 0 ? other : t.ownerId,
      }));
      await insert(rows);
      await t.db.executeQuery(CompiledQuery.raw('analyze'));
      const full = (text: string) =>
        t.dbName === 'postgres'
          ? /Seq Scan on audit_events/.test(text)
          : /SCAN (audit_events|e)\b(?! USING)/.test(text);

      const byActions = await plan({ afterId: 0, actions: ['x.rare', 'x.mid'], count: 100 });
      expect(byActions).toContain('audit_events_tenant_action_idx');
      expect(full(byActions), byActions).toBe(false);
      const byPerson = await plan({ afterId: 0, userId: other, count: 100 });
      expect(byPerson).toContain('audit_events_tenant_user_idx');
      expect(full(byPerson), byPerson).toBe(false);
      // Newest first reads the same indexes backwards.
      const newest = await plan({ afterId: 0, actions: ['x.rare', 'x.mid'], count: 100, desc: true });
      expect(newest).toContain('audit_events_tenant_action_idx');
      expect(full(newest), newest).toBe(false);
      const newestOfPerson = await plan({ afterId: 0, userId: other, count: 100, desc: true });
      expect(newestOfPerson).toContain('audit_events_tenant_user_idx');
      expect(full(newestOfPerson), newestOfPerson).toBe(false);

      const res = await page({ after: 0, action: 'x.rare,x.mid', count: 100 });
      expect(res.body.count).toBe(100);
      expect(new Set(actions(res))).toEqual(new Set(['x.rare', 'x.mid']));
    });
  });
});
