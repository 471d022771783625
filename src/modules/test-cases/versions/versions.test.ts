import { expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../../test/helpers/factories.js';
import { createTcase } from '../../../../test/helpers/tcase-factories.js';

/** docs/api-decisions.md#test-case-version-history: who made each version of a case, and when. */
describeEachDb('test-case version history', (t) => {
  const history = (code: string, ref: string | number, key?: string) =>
    t.get(`/project/${code}/tcase/${ref}/versions`, key ? { key } : {});

  it('lists every version newest first with its title, author and time', async () => {
    const runner = await userWithKey(t, 'test-runner');
    const p = await createProject(t, {}, [runner.user.id]);
    const tc = await createTcase(t, p, { title: 'first' });
    const before = Date.now();
    expect(
      (await t.patch(`/project/${p.code}/tcase/${tc.id}`, { title: 'second' }, { key: runner.key })).status,
    ).toBe(200);
    // A move is not versioned (D15): no entry for it.
    expect((await t.patch(`/project/${p.code}/tcase/${tc.id}`, { pos: 3 })).status).toBe(200);
    expect((await t.patch(`/project/${p.code}/tcase/${tc.id}`, { title: 'third' })).status).toBe(200);

    const res = await history(p.code, tc.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const owner = { authorId: t.ownerId, authorName: expect.any(String) };
    expect(res.body.versions).toEqual([
      { version: 3, title: 'third', ...owner, createdAt: expect.any(String), changed: ['title'] },
      {
        version: 2,
        title: 'second',
        authorId: runner.user.id,
        authorName: runner.user.name,
        createdAt: expect.any(String),
        changed: ['title'],
      },
      { version: 1, title: 'first', ...owner, createdAt: expect.any(String), changed: [] },
    ]);
    const times = res.body.versions.map((v: { createdAt: string }) => Date.parse(v.createdAt));
    expect(times.every(Number.isFinite)).toBe(true);
    expect(times[0]).toBeGreaterThanOrEqual(times[2]);
    expect(times[1]).toBeGreaterThanOrEqual(before - 1000);
    expect(res.body.versions[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it('names the fields each version changed from the one before, in a fixed order', async () => {
    const p = await createProject(t);
    const tc = await createTcase(t, p, {
      title: 'Pay',
      steps: [
        { description: '<p>Open the cart</p>', expected: '' },
        { description: '<p>Pay</p>', expected: '<p>Paid</p>' },
      ],
      tags: ['smoke', 'checkout'],
      precondition: { text: '<p>Signed in</p>' },
    });
    const patch = async (body: object) => {
      const res = await t.patch(`/project/${p.code}/tcase/${tc.id}`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    // Version 2: one step's expected result, a tag and the title.
    await patch({
      title: 'Pay by card',
      steps: [
        { description: '<p>Open the cart</p>', expected: '' },
        { description: '<p>Pay</p>', expected: '<p>Paid by card</p>' },
      ],
      tags: ['smoke', 'checkout', 'card'],
    });
    // Version 3: the same tags in another order, the same steps and precondition, a new priority.
    await patch({
      priority: 'high',
      tags: ['card', 'checkout', 'smoke'],
      steps: [
        { description: '<p>Open the cart</p>', expected: '' },
        { description: '<p>Pay</p>', expected: '<p>Paid by card</p>' },
      ],
      precondition: { text: '<p>Signed in</p>' },
    });
    // Version 4: precondition, links and requirements.
    await patch({
      precondition: { text: '<p>Signed in as a customer</p>' },
      links: [{ text: 'Spec', url: 'https://example.com/spec' }],
      requirements: [{ text: 'REQ-1', url: '' }],
    });
    // Version 5: two steps trade places (each keeps its text).
    await patch({
      steps: [
        { description: '<p>Pay</p>', expected: '<p>Paid by card</p>' },
        { description: '<p>Open the cart</p>', expected: '' },
      ],
    });
    const res = await history(p.code, tc.id);
    expect(res.status).toBe(200);
    expect(
      res.body.versions.map((v: { version: number; changed: string[] }) => [v.version, v.changed]),
    ).toEqual([
      [5, ['steps']],
      [4, ['precondition', 'requirements', 'links']],
      [3, ['priority']],
      [2, ['title', 'steps', 'tags']],
      [1, []],
    ]);
  });

  it('takes the seq (zero-padded too) like the other test-case routes', async () => {
    const p = await createProject(t);
    const tc = await createTcase(t, p, { title: 'by seq' });
    for (const ref of [String(tc.seq), String(tc.seq).padStart(3, '0')]) {
      const res = await history(p.code, ref);
      expect(res.status, ref).toBe(200);
      expect(res.body.versions.map((v: { title: string }) => v.title)).toEqual(['by seq']);
    }
  });

  it('is readable by a viewer who is a member, like the case itself', async () => {
    const viewer = await userWithKey(t, 'viewer');
    const p = await createProject(t, {}, [viewer.user.id]);
    const tc = await createTcase(t, p);
    const res = await history(p.code, tc.seq, viewer.key);
    expect(res.status).toBe(200);
    expect(res.body.versions).toHaveLength(1);
  });

  it('answers 404 for an unknown or deleted case and for an unknown project', async () => {
    const p = await createProject(t);
    expect((await history(p.code, 9999)).status).toBe(404);
    const tc = await createTcase(t, p);
    expect((await t.del(`/project/${p.code}/tcase/${tc.id}`)).status).toBe(200);
    expect((await history(p.code, tc.id)).status).toBe(404);
    expect((await history('NOSUCHPROJ', 1)).status).toBe(404);
  });

  it('answers 403 to a non-member', async () => {
    const outsider = await userWithKey(t, 'test-runner');
    const p = await createProject(t);
    const tc = await createTcase(t, p);
    expect((await history(p.code, tc.id, outsider.key)).status).toBe(403);
  });
});
