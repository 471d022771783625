import type { Db } from '../../db/create-db.js';
import { badRequest, notFound } from '../../errors.js';
import { parseJson } from '../../lib/json.js';
import { failureWords, sendOutbound, type OutboundResponse } from '../../lib/outbound-http.js';
import type { OutboundGuard } from '../../lib/ssrf.js';
import { credentialUrl, CUSTOM_CALLS_NOTHING, decryptCredential } from './credentials.js';
import * as repo from './integrations.repository.js';
import type { ConnectionCheck, TestSettingsBody } from './integrations.schemas.js';
import { settingsToTest } from './integrations.service.js';

export interface CheckSettings {
  guard: OutboundGuard;
  secretKey: string;
  /** How long the tracker has to answer (10 s). */
  timeoutMs?: number;
}

interface Probe {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string;
  /** Who the tracker says the credential belongs to, from a 2xx answer; undefined = not a valid answer. */
  who: (body: unknown) => string | undefined;
  /** The tracker's own words of a refusal, if its answer carries any. */
  why: (body: unknown) => string | undefined;
}

const trimSlash = (u: string) => u.replace(/\/+$/, '');
const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const JSON_HEADERS = { accept: 'application/json', 'user-agent': 'Casebook' };

/**
 * The cheapest authenticated request of each tracker kind: "who am I". It reads nothing of the tracker's
 * projects and changes nothing, so an admin may press "test" as often as they like.
 */
function probeOf(type: string, config: Record<string, string>, token: string): Probe | undefined {
  const base = credentialUrl(type, config);
  if (base === undefined) return undefined;
  if (type === 'tracker_a')
    return {
      url: `${trimSlash(base)}/user`,
      method: 'GET',
      headers: {
        ...JSON_HEADERS,
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${token}`,
        'x-github-api-version': '2022-11-28',
      },
      body: '',
      who: (b) => str((b as { login?: unknown } | undefined)?.login),
      why: (b) => str((b as { message?: unknown } | undefined)?.message),
    };
  if (type === 'tracker_b')
    return {
      url: `${trimSlash(base)}/rest/api/3/myself`,
      method: 'GET',
      headers: {
        ...JSON_HEADERS,
        authorization: `Basic ${Buffer.from(`${config.email}:${token}`).toString('base64')}`,
      },
      body: '',
      who: (b) => {
        const me = b as { displayName?: unknown; emailAddress?: unknown } | undefined;
        return str(me?.displayName) ?? str(me?.emailAddress);
      },
      why: (b) => {
        const e = b as { errorMessages?: unknown; message?: unknown } | undefined;
        return Array.isArray(e?.errorMessages) ? str(e.errorMessages.join('; ')) : str(e?.message);
      },
    };
  return {
    url: `${trimSlash(base)}/graphql`,
    method: 'POST',
    headers: { ...JSON_HEADERS, 'content-type': 'application/json', authorization: token },
    body: JSON.stringify({ query: '{ viewer { id name email } }' }),
    who: (b) => {
      const viewer = (b as { data?: { viewer?: { name?: unknown; email?: unknown } } } | undefined)?.data
        ?.viewer;
      return (b as { errors?: unknown } | undefined)?.errors
        ? undefined
        : (str(viewer?.name) ?? str(viewer?.email));
    },
    why: (b) => {
      const errors = (b as { errors?: { message?: unknown }[] } | undefined)?.errors;
      return Array.isArray(errors) ? str(errors.map((e) => e?.message).join('; ')) : undefined;
    },
  };
}

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/**
 * The tracker's message, for the admin who pressed "test": the credential (and a Basic header made of it) is
 * masked in case the tracker quotes it back, control characters are dropped, and it is cut at 300 characters.
 */
export function trackerMessage(message: string, secrets: string[]): string {
  let text = message;
  for (const s of secrets) if (s.length >= 4) text = text.split(s).join('****');
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is dropped
  text = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

function verdict(probe: Probe, res: OutboundResponse, secrets: string[]): ConnectionCheck {
  const body = parse(res.body);
  const base = { status: res.status, durationMs: res.durationMs };
  if (res.status >= 200 && res.status < 300) {
    const who = probe.who(body);
    if (who !== undefined)
      return {
        ok: true,
        ...base,
        message: `connected: the tracker knows the credential as ${trackerMessage(who, secrets)}`,
      };
  }
  const said = probe.why(body);
  const words =
    res.status === 401
      ? 'the tracker refused the credentials'
      : res.status === 403
        ? 'the tracker refused access with these credentials'
        : res.status === 404
          ? 'the tracker has no such address: check the URL'
          : res.status === 429
            ? 'the tracker asked to slow down'
            : res.status >= 500
              ? 'the tracker failed on its side'
              : res.status >= 300 && res.status < 400
                ? 'the tracker answered with a redirect (redirects are not followed): check the URL'
                : res.status >= 200 && res.status < 300
                  ? 'the tracker answered, but not as this kind of tracker does: check the type and the URL'
                  : 'the tracker refused the request';
  return {
    ok: false,
    ...base,
    message: `${words} (HTTP ${res.status})${said ? `: "${trackerMessage(said, secrets)}"` : ''}`,
  };
}

/**
 * "Test connection" (admin): the stored settings and credential, one request, the answer in words. Nothing is
 * stored and nothing retried; a timeout is 10 s. Custom integrations call no tracker: 400.
 */
export async function checkConnection(
  db: Db,
  tenantId: string,
  id: string,
  s: CheckSettings,
): Promise<ConnectionCheck> {
  const row = await repo.findIntegration(db, tenantId, id);
  if (!row) throw notFound(`integration "${id}" not found`);
  if (row.type === 'custom') throw badRequest(CUSTOM_CALLS_NOTHING);
  const config = parseJson<Record<string, string>>(row.config, {});
  return probeWith(row.type, config, row.token_enc === null ? null : { sealed: row.token_enc }, s, 'stored');
}

/**
 * "Test connection" of settings typed in the form and not saved: nothing is stored, audited or echoed back
 * (the credential is masked in the tracker's words as for a saved one).
 */
export async function checkTypedSettings(
  db: Db,
  tenantId: string,
  input: TestSettingsBody,
  s: CheckSettings,
): Promise<ConnectionCheck> {
  const settings = await settingsToTest(db, tenantId, input);
  return probeWith(settings.type, settings.config, settings.token, s, 'given');
}

async function probeWith(
  type: string,
  config: Record<string, string>,
  credential: { plain: string } | { sealed: string } | null,
  s: CheckSettings,
  how: 'stored' | 'given',
): Promise<ConnectionCheck> {
  const none = { ok: false, status: null, durationMs: null };
  if (credential === null)
    return { ...none, message: `no credential is ${how}: add one (the tracker refuses requests without it)` };
  let token: string;
  if ('plain' in credential) token = credential.plain;
  else {
    try {
      token = decryptCredential(s.secretKey, credential.sealed);
    } catch {
      return {
        ...none,
        message: 'the stored credential cannot be opened with this CASEBOOK_SECRET_KEY: store it again',
      };
    }
  }
  const probe = probeOf(type, config, token)!;
  const secrets = [token, Buffer.from(`${config.email ?? ''}:${token}`).toString('base64')];
  try {
    const res = await sendOutbound(s.guard, { ...probe, timeoutMs: s.timeoutMs ?? 10_000, keepBytes: 8192 });
    return verdict(probe, res, secrets);
  } catch (err) {
    return { ...none, message: failureWords(err, 'the tracker') };
  }
}
