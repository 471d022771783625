import { retryAfterMs, type OutboundResponse } from '../../lib/outbound-http.js';
import { DEFAULT_API_URL as DEFAULT_API } from '../integrations/integrations.service.js';

/**
 * The three tracker kinds' comment calls (D24 comment-back), as pure functions: what to send, and what the
 * answer means. Each speaks the public REST API of the tracker kind its type stands for (docs/api-decisions.md,
 * "Tracker comment-back"); the base URL is configurable for self-hosted trackers.
 */

export type TrackerType = 'tracker_a' | 'tracker_b' | 'tracker_c';

export interface CommentTarget {
  type: TrackerType;
  /** The integration's settings: account | url, email | organizationKey, and apiUrl. */
  config: Record<string, string | undefined>;
  /** The project link's settings: repo | projectId, projectName | teamId, teamName. */
  link: Record<string, string | undefined>;
  token: string | undefined;
  /** meta.id of the result link. */
  issue: string;
}

export interface CommentText {
  /** One line: status, case and run. */
  summary: string;
  caseTitle: string;
  /** Where the result is shown: the run page with the case selected. */
  url: string;
}

export interface TrackerRequest {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
}

export type TrackerAnswer =
  { ok: true; commentId: string } | { ok: false; retryable: boolean; error: string; retryAfterMs?: number };

const trimSlash = (u: string) => u.replace(/\/+$/, '');
const enc = encodeURIComponent;
/** Markdown's own characters in a title are escaped, so `[x](y)` in a case title stays text. */
const md = (text: string) => text.replace(/[\\`*_[\]<>]/g, '\\$&');
const markdown = (t: CommentText) => `**Casebook**: ${md(t.summary)}\n\n[${md(t.caseTitle)}](${t.url})`;

/** The request that posts the comment, or why there can be none (a missing setting: the job fails for good). */
export function buildCommentRequest(
  target: CommentTarget,
  text: CommentText,
): TrackerRequest | { error: string } {
  const json = { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'Casebook' };
  switch (target.type) {
    case 'tracker_a': {
      // Repository-hosting tracker (REST): POST /repos/{account}/{repo}/issues/{number}/comments.
      const { account, apiUrl } = target.config;
      const repo = target.link.repo;
      if (!account || !repo)
        return { error: 'the integration has no account or the project link no repository' };
      if (!/^\d+$/.test(target.issue)) return { error: `meta.id "${target.issue}" is not an issue number` };
      if (!target.token) return { error: 'the integration has no token to comment with' };
      return {
        method: 'POST',
        url: `${trimSlash(apiUrl ?? DEFAULT_API.tracker_a)}/repos/${enc(account)}/${enc(repo)}/issues/${target.issue}/comments`,
        headers: {
          ...json,
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${target.token}`,
          'x-github-api-version': '2022-11-28',
        },
        body: JSON.stringify({ body: markdown(text) }),
      };
    }
    case 'tracker_b': {
      // Site-based tracker (REST v3): POST {site}/rest/api/3/issue/{idOrKey}/comment, basic auth, a document body.
      const { url, email } = target.config;
      if (!url || !email) return { error: 'the integration has no site URL or e-mail' };
      if (!target.token) return { error: 'the integration has no API token' };
      return {
        method: 'POST',
        url: `${trimSlash(url)}/rest/api/3/issue/${enc(target.issue)}/comment`,
        headers: {
          ...json,
          authorization: `Basic ${Buffer.from(`${email}:${target.token}`).toString('base64')}`,
        },
        body: JSON.stringify({
          body: {
            type: 'doc',
            version: 1,
            content: [
              {
                type: 'paragraph',
                content: [
                  { type: 'text', text: 'Casebook: ', marks: [{ type: 'strong' }] },
                  { type: 'text', text: `${text.summary} ` },
                  {
                    type: 'text',
                    text: text.caseTitle,
                    marks: [{ type: 'link', attrs: { href: text.url } }],
                  },
                ],
              },
            ],
          },
        }),
      };
    }
    case 'tracker_c': {
      // Organisation-based tracker (GraphQL): the commentCreate mutation on the issue's key.
      if (!/^[A-Za-z][A-Za-z0-9_]*-\d+$/.test(target.issue))
        return { error: `meta.id "${target.issue}" is not an issue key of the form KEY-n` };
      if (!target.token) return { error: 'the integration has no API key to comment with' };
      return {
        method: 'POST',
        url: `${trimSlash(target.config.apiUrl ?? DEFAULT_API.tracker_c)}/graphql`,
        headers: { ...json, authorization: target.token },
        body: JSON.stringify({
          query:
            'mutation CommentCreate($input: CommentCreateInput!) { commentCreate(input: $input) { success comment { id } } }',
          variables: { input: { issueId: target.issue, body: markdown(text) } },
        }),
      };
    }
  }
}

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/**
 * A refusal in our own words, by its status: never the tracker's answer, which may quote the request back with the
 * credential in it (a Basic header is base64 of e-mail and token) and is shown to every viewer of the project.
 */
export function refusalWords(status: number): string {
  if (status === 401) return 'the tracker refused the credentials (HTTP 401)';
  if (status === 403) return 'the tracker refused access with these credentials (HTTP 403)';
  if (status === 404) return 'the tracker found no such issue, or the credentials cannot see it (HTTP 404)';
  if (status === 429) return 'the tracker asked to slow down (HTTP 429)';
  if (status >= 500) return `the tracker answered ${status}, an error on its side`;
  if (status >= 300 && status < 400)
    return `the tracker answered ${status}, a redirect (redirects are not followed)`;
  return `the tracker refused the comment (HTTP ${status})`;
}

/** What the tracker's answer means: the comment's id, or a failure worth retrying (429, 5xx) or not. */
export function readCommentAnswer(type: TrackerType, res: OutboundResponse): TrackerAnswer {
  const body = parse(res.body);
  const refused = (retryable: boolean, error: string): TrackerAnswer => ({
    ok: false,
    retryable,
    error,
    retryAfterMs: retryable ? retryAfterMs(res) : undefined,
  });
  if (type === 'tracker_c') {
    const errors = (body as { errors?: { extensions?: { code?: unknown } }[] } | undefined)?.errors;
    if (Array.isArray(errors) && errors.length > 0) {
      if (errors.some((e) => e?.extensions?.code === 'RATELIMITED'))
        return refused(true, `the tracker asked to slow down (RATELIMITED, HTTP ${res.status})`);
      if (res.status >= 500) return refused(true, refusalWords(res.status));
      return refused(false, `the tracker refused the comment (a GraphQL error, HTTP ${res.status})`);
    }
  }
  if (res.status === 429 || res.status >= 500) return refused(true, refusalWords(res.status));
  if (res.status < 200 || res.status >= 300) return refused(false, refusalWords(res.status));
  const id =
    type === 'tracker_c'
      ? (body as { data?: { commentCreate?: { success?: boolean; comment?: { id?: unknown } } } } | undefined)
          ?.data?.commentCreate
      : undefined;
  if (type === 'tracker_c') {
    if (!id?.success || id.comment?.id === undefined)
      return { ok: false, retryable: false, error: 'the tracker did not create the comment' };
    return { ok: true, commentId: String(id.comment.id) };
  }
  const plain = (body as { id?: unknown } | undefined)?.id;
  if (typeof plain !== 'string' && typeof plain !== 'number')
    return {
      ok: false,
      retryable: false,
      error: `the tracker answered HTTP ${res.status} without a comment id`,
    };
  return { ok: true, commentId: String(plain) };
}
