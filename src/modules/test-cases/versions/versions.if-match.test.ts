import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject } from '../../../../test/helpers/factories.js';
import { createTcase, getTcase } from '../../../../test/helpers/tcase-factories.js';

/** docs/api-decisions.md#test-case-version-precondition: If-Match on PATCH, ETag on GET. */
describeEachDb('test-case version precondition', (t) => {
  const patch = (code: string, id: string, body: unknown, ifMatch?: string) =>
    t.patch(
      `/project/${code}/tcase/${id}`,
      body,
      ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } },
    );

  it('sends the current version as the ETag of GET', async () => {
    const p = await createProject(t);
    const tc = await createTcase(t, p);
    expect((await t.get(`/project/${p.code}/tcase/${tc.id}`)).headers.etag).toBe('"1"');
    await patch(p.code, tc.id, { title: 'second' });
    expect((await t.get(`/project/${p.code}/tcase/${tc.seq}`)).headers.etag).toBe('"2"');
  });

  it('updates when If-Match names the current version', async () => {
    const p = await createProject(t);
    const tc = await createTcase(t, p);
    const res = await patch(p.code, tc.id, { title: 'second' }, '"1"');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ message: 'Test case updated' });
    expect(await getTcase(t, p, tc.id)).toMatchObject({ version: 2, title: 'second' });
  });

  it('answers 409 naming the current version for a stale one, and changes nothing', async () => {
    const p = await createProject(t);
    const tc = await createTcase(t, p, { title: 'first' });
    await patch(p.code, tc.id, { title: 'second' });
    const res = await patch(p.code, tc.id, { title: 'mine' }, '"1"');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      code: 'CONFLICT',
      message: `test case ${p.code}-${String(tc.seq).padStart(3, '0')} is at version 2, not 1: it was changed since it was read`,
    });
    expect(await getTcase(t, p, tc.id)).toMatchObject({ version: 2, title: 'second' });
  });

  it('without If-Match (or with *) updates as before: the CLI and the MCP server send none', async () => {
    const p = await createProject(t);
    const tc = await createTcase(t, p);
    expect((await patch(p.code, tc.id, { title: 'a' })).status).toBe(200);
    expect((await patch(p.code, tc.id, { title: 'b' }, '*')).status).toBe(200);
    expect((await getTcase(t, p, tc.id)).version).toBe(3);
  });

  it('answers 400 for an If-Match that names no version', async () => {
    const p = await createProject(t);
    const tc = await createTcase(t, p);
    const res = await patch(p.code, tc.id, { title: 'x' }, '"abc"');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
  });

  it('lets exactly one of two edits based on the same version through', async () => {
    const p = await createProject(t);
    const tc = await createTcase(t, p);
    const [a, b] = await Promise.all([
      patch(p.code, tc.id, { title: 'from A' }, '"1"'),
      patch(p.code, tc.id, { title: 'from B' }, '"1"'),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect((await getTcase(t, p, tc.id)).version).toBe(2);
  });

  describe('moves are not versioned (D15)', () => {
    it('a move keeps the version, so an If-Match read before it still holds', async () => {
      const p = await createProject(t);
      const tc = await createTcase(t, p);
      await patch(p.code, tc.id, { pos: 5 });
      expect((await patch(p.code, tc.id, { title: 'after move' }, '"1"')).status).toBe(200);
    });
  });
});
