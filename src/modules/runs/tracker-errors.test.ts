import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { startReceiver, type Receiver } from '../../../test/helpers/receiver.js';
import { createRun } from '../../../test/helpers/run-factories.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createJobRunner } from '../../jobs/index.js';

const EMAIL = 'qa-bot@acme.test';
const TOKEN = 'tb-Secr3t-Token-xyz';

/** Every form in which the credential could come back: raw, base64, e-mail:token, URL- and JSON-escaped. */
const forms = (token: string, email?: string): string[] => {
  const pair = email ? `${email}:${token}` : token;
  return [
    token,
    pair,
    Buffer.from(pair).toString('base64'),
    Buffer.from(pair).toString('base64url'),
    Buffer.from(token).toString('base64'),
    encodeURIComponent(pair),
    JSON.stringify(pair).slice(1, -1),
  ];
};

/**
 * A tracker that quotes the request back in its error (as some proxies and trackers do) must not put the credential
 * on the result link, which every viewer of the project reads, nor into the job's error.
 */
describeEachDb(
  'tracker comment-back: a refusal is stored in our words, never with the credential',
  (t) => {
    let tracker: Receiver;
    let project: { id: string; code: string };
    let clock = Date.now();
    const drain = () => {
      if (clock < Date.now()) clock = Date.now();
      return createJobRunner(t.db, t.config, t.app.ctx, { now: () => clock, random: () => 1 }).drain();
    };
    beforeAll(async () => {
      tracker = await startReceiver();
      project = await createProject(t);
    });
    afterAll(() => tracker.close());
    beforeEach(async () => {
      await t.db.deleteFrom('jobs').execute();
      tracker.requests.length = 0;
    });

    /** An integration on the fake tracker, a failed result linking an issue, the comment job run once. */
    async function commentOnce(
      type: string,
      config: Record<string, string>,
      link: Record<string, string>,
      issue = 'ENG-9',
    ) {
      const made = await t.post('/integration', {
        name: `${type} ${Math.random()}`,
        type,
        config,
        token: TOKEN,
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const linked = await t.post(`/project/${project.code}/integration`, {
        integrationId: made.body.id,
        config: link,
      });
      expect(linked.status, JSON.stringify(linked.body)).toBe(200);
      const tc = await createTcase(t, project);
      const run = await createRun(t, project, { tcaseIds: [tc.id], title: `Echo ${Math.random()}` });
      const res = await t.post(`/project/${project.code}/run/${run.id}/tcase/${tc.id}/result`, {
        status: 'failed',
        links: [{ integrationId: made.body.id, url: 'https://t.test/9', text: 'Bug', meta: { id: issue } }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      await drain();
      const served = await t.get(`/project/${project.code}/run/${run.id}/tcase/${tc.id}`);
      expect(served.status).toBe(200);
      const jobs = await t.db
        .selectFrom('jobs')
        .select('last_error')
        .where('kind', '=', 'tracker.comment')
        .execute();
      const stored = await t.db.selectFrom('result_links').select('comment_error').execute();
      return {
        path: `/project/${project.code}/run/${run.id}/tcase/${tc.id}`,
        served: served.body,
        jobs,
        stored,
        comment: served.body.results[0].links[0].comment,
      };
    }

    /** The tracker's answer: the Authorization header it got, quoted in the shapes trackers use for errors. */
    const echo = (status: number) => () => {
      const auth = String(tracker.requests.at(-1)!.headers.authorization);
      const b64 = auth.replace(/^Basic /, '');
      return {
        status,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          message: `Bad credentials: ${auth}`,
          errorMessages: [`could not log in with ${Buffer.from(b64, 'base64').toString()}`, auth],
          errors: [{ message: `header was ${auth}` }],
        }),
      };
    };

    it('tracker_b answering 401, 403, 400 or 500 with the Basic header quoted: the link and the job say the status in our words', async () => {
      const cases: [number, string, string][] = [
        [401, 'failed', 'the tracker refused the credentials (HTTP 401)'],
        [403, 'failed', 'the tracker refused access with these credentials (HTTP 403)'],
        [400, 'failed', 'the tracker refused the comment (HTTP 400)'],
        [500, 'pending', 'the tracker answered 500, an error on its side'],
      ];
      for (const [status, outcome, words] of cases) {
        await t.db.deleteFrom('jobs').execute();
        tracker.respond = echo(status);
        const got = await commentOnce(
          'tracker_b',
          { url: `${tracker.url}/site`, email: EMAIL },
          { projectId: '1', projectName: 'Web' },
        );
        // The tracker did get the credential, and quoted it back.
        expect(String(tracker.requests.at(-1)!.headers.authorization)).toBe(
          `Basic ${Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64')}`,
        );
        expect(got.comment).toEqual({ status: outcome, error: words, updatedAt: expect.any(String) });
        for (const where of [
          JSON.stringify(got.served),
          JSON.stringify(got.jobs),
          JSON.stringify(got.stored),
        ])
          for (const form of forms(TOKEN, EMAIL)) expect(where, `${status}: ${form}`).not.toContain(form);
      }
    });

    it('tracker_a and tracker_c quoting their token back: our words only', async () => {
      tracker.respond = echo(401);
      const a = await commentOnce(
        'tracker_a',
        { account: 'acme', apiUrl: tracker.url },
        { repo: 'shop' },
        '42',
      );
      expect(tracker.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(a.comment).toEqual({
        status: 'failed',
        error: 'the tracker refused the credentials (HTTP 401)',
        updatedAt: expect.any(String),
      });
      for (const where of [JSON.stringify(a.served), JSON.stringify(a.jobs), JSON.stringify(a.stored)])
        for (const form of forms(TOKEN)) expect(where).not.toContain(form);
      tracker.respond = () => ({
        status: 200,
        body: JSON.stringify({
          errors: [{ message: `token ${TOKEN} may not comment`, extensions: { code: TOKEN } }],
        }),
      });
      const c = await commentOnce(
        'tracker_c',
        { organizationKey: 'ENG', apiUrl: tracker.url },
        { teamId: 'T', teamName: 'Eng' },
      );
      expect(tracker.requests.at(-1)!.headers.authorization).toBe(TOKEN);
      expect(c.comment).toEqual({
        status: 'failed',
        error: 'the tracker refused the comment (a GraphQL error, HTTP 200)',
        updatedAt: expect.any(String),
      });
      for (const where of [JSON.stringify(c.served), JSON.stringify(c.jobs), JSON.stringify(c.stored)])
        for (const form of forms(TOKEN)) expect(where).not.toContain(form);
    });

    it('an error stored by an earlier version, with the answer quoted, is shown with its status only', async () => {
      tracker.respond = () => ({ status: 401, body: 'nope' });
      const got = await commentOnce(
        'tracker_b',
        { url: `${tracker.url}/site`, email: EMAIL },
        { projectId: '1', projectName: 'Web' },
      );
      const basic = `Basic ${Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64')}`;
      const legacy = `the tracker answered HTTP 401: Bad credentials (${basic})`;
      await t.db.updateTable('result_links').set({ comment_error: legacy }).execute();
      await t.db
        .updateTable('jobs')
        .set({ last_error: legacy })
        .where('kind', '=', 'tracker.comment')
        .execute();
      const served = await t.get(got.path);
      expect(served.body.results[0].links[0].comment).toEqual({
        status: 'failed',
        error: 'the tracker answered HTTP 401',
        updatedAt: expect.any(String),
      });
      const jobs = await t.get('/job', { query: { kind: 'tracker.comment' } });
      expect(jobs.status).toBe(200);
      expect(jobs.body.jobs.map((j: { lastError: string }) => j.lastError)).toEqual([
        'the tracker answered HTTP 401',
      ]);
      for (const form of forms(TOKEN, EMAIL)) {
        expect(JSON.stringify(served.body)).not.toContain(form);
        expect(JSON.stringify(jobs.body)).not.toContain(form);
      }
    });

    it('a tracker that cannot be reached: the link says so with the error code', async () => {
      const gone = await startReceiver();
      await gone.close();
      const got = await commentOnce(
        'tracker_c',
        { organizationKey: 'ENG', apiUrl: gone.url },
        { teamId: 'T', teamName: 'Eng' },
      );
      expect(got.comment).toEqual({
        status: 'pending',
        error: 'could not connect to the tracker (ECONNREFUSED)',
        updatedAt: expect.any(String),
      });
    });
  },
  { env: { CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
