import { expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../../test/helpers/factories.js';
import { cases, runWith } from '../../../../test/helpers/report-factories.js';
import { createApiKey } from '../../api-keys/api-keys.service.js';
import { createTenant } from '../../tenants/tenants.service.js';
import { createUser } from '../../users/users.service.js';

const shared = (token: string) => `/api/shared-report/${token}`;

describeEachDb('shared report links and their creator’s access', (t) => {
  /** A test-runner member's link to a run report of a project, with what it takes to read it without a key. */
  async function runnersLink() {
    const runner = await userWithKey(t, 'test-runner');
    const p = await createProject(t, {}, [runner.user.id]);
    const [c1] = await cases(t, p, 1);
    const runId = await runWith(t, p, [[c1, 'failed', { comment: 'broke' }]]);
    const made = await t.post(
      `/project/${p.code}/report/share`,
      { report: 'run', params: { runId } },
      { key: runner.key },
    );
    expect(made.status, made.text).toBe(201);
    const read = () => t.get(shared(made.body.token), { key: null });
    expect((await read()).status).toBe(200);
    return { runner, p, share: made.body as { id: number; token: string }, read };
  }

  /** What a token nobody ever made answers: a link that stopped must be told apart from it by nothing. */
  async function unknownAnswer() {
    const res = await t.get(shared('no-such-token'), { key: null });
    return { status: res.status, body: res.body };
  }

  const storedRevocation = async (id: number) =>
    (
      await t.db
        .selectFrom('report_shares')
        .select('revoked_at')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).revoked_at;

  it('stops answering, as an unknown link does, once its creator is removed from the project, and answers again when they are added back', async () => {
    const { runner, p, share, read } = await runnersLink();
    expect((await t.del(`/project/${p.code}/member/${runner.user.id}`)).status).toBe(200);
    const gone = await read();
    expect({ status: gone.status, body: gone.body }).toEqual(await unknownAnswer());
    expect(await storedRevocation(share.id)).toBeNull();

    const added = await t.post(`/project/${p.code}/member`, { userId: runner.user.id });
    expect(added.status, added.text).toBeLessThan(300);
    const back = await read();
    expect(back.status, back.text).toBe(200);
    expect(back.body.data.failures[0].comment).toContain('broke');
  });

  it('stops answering while its creator is deactivated and answers again once they are reactivated', async () => {
    const { runner, share, read } = await runnersLink();
    expect((await t.post(`/users/${runner.user.id}/deactivate`, {})).status).toBe(200);
    const gone = await read();
    expect({ status: gone.status, body: gone.body }).toEqual(await unknownAnswer());
    expect(await storedRevocation(share.id)).toBeNull();

    expect((await t.post(`/users/${runner.user.id}/reactivate`, {})).status).toBe(200);
    expect((await read()).status).toBe(200);
  });

  it('stops answering once its creator’s role is lowered to viewer, who may not share, and answers again when raised', async () => {
    const { runner, read } = await runnersLink();
    const lowered = await t.post(`/users/${runner.user.id}/role`, { role: 'viewer' });
    expect(lowered.status, lowered.text).toBe(200);
    const gone = await read();
    expect({ status: gone.status, body: gone.body }).toEqual(await unknownAnswer());

    expect((await t.post(`/users/${runner.user.id}/role`, { role: 'test-runner' })).status).toBe(200);
    expect((await read()).status).toBe(200);
  });

  it('keeps a link an admin revoked dead after its creator is restored to the project', async () => {
    const { runner, p, share, read } = await runnersLink();
    const admin = await userWithKey(t, 'admin');
    await t.del(`/project/${p.code}/member/${runner.user.id}`);
    expect((await t.del(`/project/${p.code}/report/share/${share.id}`, { key: admin.key })).status).toBe(204);
    await t.post(`/project/${p.code}/member`, { userId: runner.user.id });
    const res = await read();
    expect({ status: res.status, body: res.body }).toEqual(await unknownAnswer());
    expect(await storedRevocation(share.id)).not.toBeNull();
  });

  it('lists each link as active or not with the reason, and lets an admin revoke a link whose creator lost access', async () => {
    const { runner, p, share } = await runnersLink();
    const other = await userWithKey(t, 'test-runner');
    await t.post(`/project/${p.code}/member`, { userId: other.user.id });
    const kept = (
      await t.post(`/project/${p.code}/report/share`, { report: 'dashboard' }, { key: other.key })
    ).body;
    const list = async () =>
      (await t.get(`/project/${p.code}/report/share`)).body.shares as {
        id: number;
        active: boolean;
        inactiveReason?: string;
      }[];
    const state = async (id: number) => {
      const item = (await list()).find((s) => s.id === id);
      return { active: item?.active, inactiveReason: item?.inactiveReason };
    };
    expect(await state(share.id)).toEqual({ active: true, inactiveReason: undefined });

    await t.del(`/project/${p.code}/member/${runner.user.id}`);
    expect(await state(share.id)).toEqual({ active: false, inactiveReason: 'creatorNoAccess' });
    expect(await state(kept.id)).toEqual({ active: true, inactiveReason: undefined });

    await t.post(`/users/${runner.user.id}/deactivate`, {});
    expect(await state(share.id)).toEqual({ active: false, inactiveReason: 'creatorDeactivated' });

    const admin = await userWithKey(t, 'admin');
    expect((await t.del(`/project/${p.code}/report/share/${share.id}`, { key: admin.key })).status).toBe(204);
    expect(await state(share.id)).toEqual({ active: false, inactiveReason: 'revoked' });
  });

  it('answers Cache-Control: no-store on the report, on a link that stopped and on a token refused as malformed', async () => {
    const { runner, p, read } = await runnersLink();
    const open = await read();
    expect(open.headers['cache-control']).toBe('no-store');
    await t.del(`/project/${p.code}/member/${runner.user.id}`);
    const closed = await read();
    expect(closed.status).toBe(404);
    expect(closed.headers['cache-control']).toBe('no-store');
    // A NUL, which every route's parameters refuse (400) before the handler runs.
    const malformed = await t.get(shared('a%00b'), { key: null });
    expect(malformed.status, malformed.text).toBe(400);
    expect(malformed.headers['cache-control']).toBe('no-store');
    expect(malformed.headers['referrer-policy']).toBe('no-referrer');
  });
});

describeEachDb(
  'shared report links in multi-tenant mode',
  (t) => {
    it('hands out the link on the tenant’s own host, with the public URL’s scheme and port', async () => {
      const host = 'epsilon.casebook.test';
      await createTenant(t.db, { id: 'epsilon', name: 'Epsilon', host });
      const owner = await createUser(
        t.db,
        'epsilon',
        { email: 'owner@epsilon.example.com', name: 'O', role: 'owner' },
        true,
      );
      const key = (await createApiKey(t.db, 'epsilon', { userId: owner.id, name: 'k' })).key;
      const headers = { host };
      expect((await t.post('/project', { code: 'EPS', title: 'Eps' }, { key, headers })).status).toBe(201);
      const made = await t.post('/project/EPS/report/share', { report: 'dashboard' }, { key, headers });
      expect(made.status, made.text).toBe(201);
      // The test instance's public URL is http://casebook.test.
      expect(made.body.url).toBe(`http://${host}/shared/${made.body.token}`);
      expect((await t.get(shared(made.body.token), { key: null, headers })).status).toBe(200);
    });
  },
  { env: { CASEBOOK_MULTI_TENANT: 'true' } },
);
