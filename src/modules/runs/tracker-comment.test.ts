import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { startReceiver, type Receiver } from '../../../test/helpers/receiver.js';
import { createRun } from '../../../test/helpers/run-factories.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import type { OutboundResponse } from '../../lib/outbound-http.js';
import { createJobRunner } from '../../jobs/index.js';
import { buildCommentRequest, readCommentAnswer } from './tracker-comment.adapters.js';

const text = {
  summary: 'failed in run "Nightly" (WEB-7)',
  caseTitle: 'Login works',
  url: 'https://cb.test/project/WEB/run/3?tcase=7',
};
const answer = (status: number, body: unknown, headers: Record<string, string> = {}): OutboundResponse => ({
  status,
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  durationMs: 1,
});

describe('tracker comment requests: exactly what each tracker kind expects', () => {
  it('tracker_a: POST /repos/{account}/{repo}/issues/{number}/comments with a Bearer token and a markdown body', () => {
    const req = buildCommentRequest(
      {
        type: 'tracker_a',
        config: { account: 'acme' },
        link: { repo: 'shop web' },
        token: 'ghp_T',
        issue: '42',
      },
      text,
    );
    expect(req).toEqual({
      method: 'POST',
      url: 'https://api.github.com/repos/acme/shop%20web/issues/42/comments',
      headers: {
        'content-type': 'application/json',
        accept: 'application/vnd.github+json',
        'user-agent': 'Casebook',
        authorization: 'Bearer ghp_T',
        'x-github-api-version': '2022-11-28',
      },
      body: JSON.stringify({
        body: '**Casebook**: failed in run "Nightly" (WEB-7)\n\n[Login works](https://cb.test/project/WEB/run/3?tcase=7)',
      }),
    });
  });

  it('escapes markdown in a case title, so a title cannot forge a link or emphasis', () => {
    const req = buildCommentRequest(
      { type: 'tracker_a', config: { account: 'a' }, link: { repo: 'r' }, token: 't', issue: '1' },
      { ...text, caseTitle: '[click](https://evil.test) *now*' },
    );
    expect(JSON.parse((req as { body: string }).body).body).toContain(
      '[\\[click\\](https://evil.test) \\*now\\*](https://cb.test/project/WEB/run/3?tcase=7)',
    );
  });

  it('tracker_a on a self-hosted base URL; refuses an issue that is not a number and a missing token', () => {
    const base = {
      type: 'tracker_a' as const,
      config: { account: 'a', apiUrl: 'https://git.corp/api/v3/' },
      link: { repo: 'r' },
    };
    expect(buildCommentRequest({ ...base, token: 't', issue: '5' }, text)).toMatchObject({
      url: 'https://git.corp/api/v3/repos/a/r/issues/5/comments',
    });
    expect(buildCommentRequest({ ...base, token: 't', issue: 'WEB-5' }, text)).toEqual({
      error: 'meta.id "WEB-5" is not an issue number',
    });
    expect(buildCommentRequest({ ...base, token: undefined, issue: '5' }, text)).toEqual({
      error: 'the integration has no token to comment with',
    });
  });

  it('tracker_b: POST {site}/rest/api/3/issue/{id}/comment with basic auth (e-mail:token) and a document body', () => {
    const req = buildCommentRequest(
      {
        type: 'tracker_b',
        config: { url: 'https://acme.tracker-b.test/', email: 'qa@acme.test' },
        link: {},
        token: 'tokB',
        issue: '10042',
      },
      text,
    );
    expect(req).toMatchObject({
      method: 'POST',
      url: 'https://acme.tracker-b.test/rest/api/3/issue/10042/comment',
      headers: {
        authorization: `Basic ${Buffer.from('qa@acme.test:tokB').toString('base64')}`,
        'content-type': 'application/json',
      },
    });
    expect(JSON.parse((req as { body: string }).body)).toEqual({
      body: {
        type: 'doc',
        version: 1,
        content: [
          {
            type: 'paragraph',
            content: [
              { type: 'text', text: 'Casebook: ', marks: [{ type: 'strong' }] },
              { type: 'text', text: 'failed in run "Nightly" (WEB-7) ' },
              { type: 'text', text: 'Login works', marks: [{ type: 'link', attrs: { href: text.url } }] },
            ],
          },
        ],
      },
    });
  });

  it('tracker_c: the commentCreate GraphQL mutation on the issue key, with the API key as Authorization', () => {
    const req = buildCommentRequest(
      {
        type: 'tracker_c',
        config: { organizationKey: 'acme' },
        link: { teamId: 't' },
        token: 'lin_api_K',
        issue: 'ENG-12',
      },
      text,
    );
    expect(req).toMatchObject({
      method: 'POST',
      url: 'https://api.linear.app/graphql',
      headers: { authorization: 'lin_api_K', 'content-type': 'application/json' },
    });
    const body = JSON.parse((req as { body: string }).body);
    expect(body.query).toContain('commentCreate(input: $input)');
    expect(body.variables).toEqual({
      input: {
        issueId: 'ENG-12',
        body: '**Casebook**: failed in run "Nightly" (WEB-7)\n\n[Login works](https://cb.test/project/WEB/run/3?tcase=7)',
      },
    });
    expect(
      buildCommentRequest({ type: 'tracker_c', config: {}, link: {}, token: 'k', issue: '12' }, text),
    ).toEqual({
      error: 'meta.id "12" is not an issue key of the form KEY-n',
    });
  });

  it('reads the comment id of a success, retries 429 (with Retry-After) and 5xx, and gives up on another 4xx with the reason', () => {
    expect(readCommentAnswer('tracker_a', answer(201, { id: 99, html_url: 'x' }))).toEqual({
      ok: true,
      commentId: '99',
    });
    expect(readCommentAnswer('tracker_b', answer(201, { id: '10001' }))).toEqual({
      ok: true,
      commentId: '10001',
    });
    expect(
      readCommentAnswer(
        'tracker_c',
        answer(200, { data: { commentCreate: { success: true, comment: { id: 'c-1' } } } }),
      ),
    ).toEqual({ ok: true, commentId: 'c-1' });
    expect(
      readCommentAnswer('tracker_a', answer(429, { message: 'slow down' }, { 'retry-after': '30' })),
    ).toEqual({
      ok: false,
      retryable: true,
      error: 'the tracker asked to slow down (HTTP 429)',
      retryAfterMs: 30_000,
    });
    expect(readCommentAnswer('tracker_b', answer(503, 'busy'))).toMatchObject({ ok: false, retryable: true });
    expect(
      readCommentAnswer('tracker_b', answer(404, { errorMessages: ['Issue does not exist'], errors: {} })),
    ).toEqual({
      ok: false,
      retryable: false,
      error: 'the tracker found no such issue, or the credentials cannot see it (HTTP 404)',
      retryAfterMs: undefined,
    });
    expect(readCommentAnswer('tracker_a', answer(401, { message: 'Bad credentials' }))).toMatchObject({
      retryable: false,
      error: 'the tracker refused the credentials (HTTP 401)',
    });
    expect(
      readCommentAnswer(
        'tracker_c',
        answer(400, { errors: [{ message: 'Rate limit exceeded', extensions: { code: 'RATELIMITED' } }] }),
      ),
    ).toMatchObject({ ok: false, retryable: true });
    expect(
      readCommentAnswer('tracker_c', answer(200, { errors: [{ message: 'Entity not found: Issue' }] })),
    ).toEqual({
      ok: false,
      retryable: false,
      error: 'the tracker refused the comment (a GraphQL error, HTTP 200)',
      retryAfterMs: undefined,
    });
  });
});

describeEachDb(
  'tracker comment-back through the API (D24)',
  (t) => {
    let tracker: Receiver;
    let project: { id: string; code: string };
    let clock = Date.now();
    const drain = () => {
      if (clock < Date.now()) clock = Date.now();
      return createJobRunner(t.db, t.config, t.app.ctx, { now: () => clock, random: () => 1 }).drain();
    };
    const integration = async (
      type: string,
      config: Record<string, string>,
      link: Record<string, string>,
      token?: string,
    ) => {
      const made = await t.post('/integration', {
        name: `${type} ${Math.random()}`,
        type,
        config,
        ...(token ? { token } : {}),
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const linked = await t.post(`/project/${project.code}/integration`, {
        integrationId: made.body.id,
        config: link,
      });
      expect(linked.status, JSON.stringify(linked.body)).toBe(200);
      return made.body.id as string;
    };
    const linksOf = async (runId: number, tcaseId: string) => {
      const res = await t.get(`/project/${project.code}/run/${runId}/tcase/${tcaseId}`);
      expect(res.status).toBe(200);
      return res.body.results.flatMap((r: { links: unknown[] }) => r.links);
    };
    beforeAll(async () => {
      tracker = await startReceiver();
      project = await createProject(t);
    });
    afterAll(async () => tracker.close());
    beforeEach(async () => {
      await t.db.deleteFrom('jobs').execute();
      tracker.requests.length = 0;
      clock = Date.now();
    });

    it('posts a comment linking back to the result and shows it posted, with the comment id, on the link', async () => {
      const id = await integration(
        'tracker_a',
        { account: 'acme', apiUrl: `${tracker.url}/api/v3` },
        { repo: 'shop' },
        'ghp_secret_1',
      );
      tracker.respond = () => ({ status: 201, body: JSON.stringify({ id: 1001 }) });
      const tc = await createTcase(t, project, { title: 'Checkout works' });
      const run = await createRun(t, project, { tcaseIds: [tc.id], title: `Nightly ${Math.random()}` });
      const res = await t.post(`/project/${project.code}/run/${run.id}/tcase/${tc.id}/result`, {
        status: 'failed',
        links: [
          {
            integrationId: id,
            url: 'https://git.test/acme/shop/issues/42',
            text: 'Checkout 500',
            meta: { id: '42' },
          },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      // Answered before any comment: pending.
      expect((await linksOf(run.id, tc.id))[0].comment).toEqual({
        status: 'pending',
        updatedAt: expect.any(String),
      });
      await drain();
      expect(tracker.requests).toHaveLength(1);
      const sent = tracker.requests[0];
      expect(sent.method).toBe('POST');
      expect(sent.url).toBe('/api/v3/repos/acme/shop/issues/42/comments');
      expect(sent.headers.authorization).toBe('Bearer ghp_secret_1');
      const body = JSON.parse(sent.body).body as string;
      expect(body).toContain('failed in run "Nightly');
      expect(body).toContain(`/project/${project.code}/run/${run.id}?tcase=${tc.seq}`);
      expect(body).toContain('Checkout works');
      expect((await linksOf(run.id, tc.id))[0].comment).toEqual({
        status: 'posted',
        id: '1001',
        updatedAt: expect.any(String),
      });
    });

    it('retries a rate-limited comment after its Retry-After and posts it; a batch posts one comment per tracker link', async () => {
      const id = await integration(
        'tracker_c',
        { organizationKey: 'acme', apiUrl: tracker.url },
        { teamId: 'T1', teamName: 'Web' },
        'lin_api_key',
      );
      let calls = 0;
      tracker.respond = () =>
        ++calls === 1
          ? {
              status: 429,
              headers: { 'retry-after': '20' },
              body: JSON.stringify({
                errors: [{ message: 'Rate limited', extensions: { code: 'RATELIMITED' } }],
              }),
            }
          : {
              status: 200,
              body: JSON.stringify({
                data: { commentCreate: { success: true, comment: { id: `c-${calls}` } } },
              }),
            };
      const a = await createTcase(t, project);
      const b = await createTcase(t, project);
      const run = await createRun(t, project, { tcaseIds: [a.id, b.id], title: `Batch ${Math.random()}` });
      const batch = await t.post(`/project/${project.code}/run/${run.id}/result/batch`, {
        items: [
          {
            tcaseId: a.id,
            status: 'failed',
            links: [{ integrationId: id, url: 'https://l.test/ENG-1', text: 'ENG-1', meta: { id: 'ENG-1' } }],
          },
          { tcaseId: b.id, status: 'passed', links: [{ url: 'https://ci.test/log', text: 'CI log' }] },
        ],
      });
      expect(batch.status, JSON.stringify(batch.body)).toBe(201);
      await drain();
      expect(tracker.requests).toHaveLength(1);
      expect(tracker.requests[0].url).toBe('/graphql');
      expect(tracker.requests[0].headers.authorization).toBe('lin_api_key');
      expect((await linksOf(run.id, a.id))[0].comment).toEqual({
        status: 'pending',
        error: 'the tracker asked to slow down (RATELIMITED, HTTP 429)',
        updatedAt: expect.any(String),
      });
      // The plain link of the other case is due no comment: no outcome on it.
      expect((await linksOf(run.id, b.id))[0]).not.toHaveProperty('comment');
      clock += 19_000;
      await drain();
      expect(tracker.requests).toHaveLength(1);
      clock += 2_000;
      await drain();
      expect(tracker.requests).toHaveLength(2);
      expect((await linksOf(run.id, a.id))[0].comment).toEqual({
        status: 'posted',
        id: 'c-2',
        updatedAt: expect.any(String),
      });
    });

    it("shows a refused comment as failed with the status in our words, never the tracker's answer or the credential, and does not retry it", async () => {
      const site = `${tracker.url}/site`;
      const id = await integration(
        'tracker_b',
        { url: site, email: 'qa@acme.test' },
        { projectId: '1', projectName: 'Web' },
        'jira-token-zz',
      );
      tracker.respond = () => ({
        status: 404,
        body: JSON.stringify({
          errorMessages: ['Issue does not exist or you do not have permission (jira-token-zz)'],
        }),
      });
      const tc = await createTcase(t, project);
      const run = await createRun(t, project, { tcaseIds: [tc.id], title: `Refused ${Math.random()}` });
      const res = await t.post(`/project/${project.code}/run/${run.id}/tcase/${tc.id}/result`, {
        status: 'failed',
        links: [{ integrationId: id, url: 'https://j.test/browse/9', text: 'Bug', meta: { id: '9' } }],
      });
      expect(res.status).toBe(201);
      await drain();
      clock += 3_600_000;
      await drain();
      expect(tracker.requests).toHaveLength(1);
      expect(tracker.requests[0].url).toBe('/site/rest/api/3/issue/9/comment');
      expect(tracker.requests[0].headers.authorization).toBe(
        `Basic ${Buffer.from('qa@acme.test:jira-token-zz').toString('base64')}`,
      );
      const comment = (await linksOf(run.id, tc.id))[0].comment;
      expect(comment).toEqual({
        status: 'failed',
        error: 'the tracker found no such issue, or the credentials cannot see it (HTTP 404)',
        updatedAt: expect.any(String),
      });
      const job = await t.db
        .selectFrom('jobs')
        .select(['status', 'last_error'])
        .where('kind', '=', 'tracker.comment')
        .executeTakeFirstOrThrow();
      expect(job.status).toBe('failed');
      expect(job.last_error).not.toContain('jira-token-zz');
    });

    it('sends nothing for a result request that is refused, for a custom integration, or for a link without meta.id', async () => {
      const trackerId = await integration(
        'tracker_a',
        { account: 'acme', apiUrl: tracker.url },
        { repo: 'shop' },
        'ghp_x',
      );
      const customId = await integration(
        'custom',
        { newUrl: 'https://c.test/new', viewUrl: 'https://c.test/{id}' },
        {},
      );
      const tc = await createTcase(t, project);
      const run = await createRun(t, project, { tcaseIds: [tc.id], title: `Nothing ${Math.random()}` });
      // One bad item refuses the whole batch (400): the tracker link of the good item is not stored either.
      const refused = await t.post(`/project/${project.code}/run/${run.id}/result/batch`, {
        items: [
          {
            tcaseId: tc.id,
            status: 'failed',
            links: [{ integrationId: trackerId, url: 'https://g.test/1', text: 'x', meta: { id: '1' } }],
          },
          { tcaseId: tc.id, status: 'no-such-status' },
        ],
      });
      expect(refused.status).toBe(400);
      const ok = await t.post(`/project/${project.code}/run/${run.id}/tcase/${tc.id}/result`, {
        status: 'failed',
        links: [
          { integrationId: customId, url: 'https://c.test/5', text: 'custom', meta: { id: '5' } },
          { integrationId: trackerId, url: 'https://g.test/2', text: 'no issue id' },
        ],
      });
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
      await drain();
      expect(tracker.requests).toHaveLength(0);
      expect(
        await t.db.selectFrom('jobs').select('id').where('kind', '=', 'tracker.comment').execute(),
      ).toEqual([]);
      for (const link of await linksOf(run.id, tc.id)) expect(link).not.toHaveProperty('comment');
    });
  },
  { env: { CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
