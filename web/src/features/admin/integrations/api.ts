import { api, isApiError, unwrap } from '../../../api/client';
import { integrationsQuery } from '../../../api/queries';
import type { paths } from '../../../api/schema';
import { sentence, UNREACHABLE, type FormErrors } from '../../../lib/useForm';

// The tenant's integrations: one query with the projects' "Link tracker" list (api/queries.ts).
export { integrationsQuery };

export type Integration = Awaited<ReturnType<typeof integrationsQuery.queryFn & {}>>[number];
export type IntegrationType = Integration['type'];
export type CreateBody = NonNullable<
  paths['/api/public/v0/integration']['post']['requestBody']
>['content']['application/json'];
export type UpdateBody = NonNullable<
  paths['/api/public/v0/integration/{integrationId}']['patch']['requestBody']
>['content']['application/json'];
export type ConfigKey = keyof NonNullable<CreateBody['config']>;

export const createIntegration = (body: CreateBody) =>
  unwrap(api.POST('/api/public/v0/integration', { body }));

export const updateIntegration = (integrationId: string, body: UpdateBody) =>
  unwrap(
    api.PATCH('/api/public/v0/integration/{integrationId}', { params: { path: { integrationId } }, body }),
  );

export const deleteIntegration = (integrationId: string) =>
  unwrap(api.DELETE('/api/public/v0/integration/{integrationId}', { params: { path: { integrationId } } }));

export const testIntegration = (integrationId: string) =>
  unwrap(
    api.POST('/api/public/v0/integration/{integrationId}/test', { params: { path: { integrationId } } }),
  );

export type TestSettingsBody = NonNullable<
  paths['/api/public/v0/integration/test']['post']['requestBody']
>['content']['application/json'];

/** Tests settings as typed in the form, before saving (nothing is stored). */
export const testTypedSettings = (body: TestSettingsBody) =>
  unwrap(api.POST('/api/public/v0/integration/test', { body }));

/** A connection test's answer in a sentence, with how long the tracker took. */
export const checkInWords = (
  r: { message: string; durationMs: number | null },
  took: (ms: number) => string,
) => `${sentence(r.message)}${r.durationMs === null ? '' : ` (${took(r.durationMs)})`}`;

interface TypeInfo {
  label: string;
  /** What it is, for the person choosing. */
  hint: string;
  fields: {
    key: ConfigKey;
    label: string;
    required: boolean;
    description?: string;
    type?: 'url' | 'email';
  }[];
  token: 'required' | 'optional' | 'none';
  tokenLabel: string;
}

/** Each tracker type the API takes (src/modules/integrations: TYPES), with the words of its settings. */
export const TYPES: Record<IntegrationType, TypeInfo> = {
  tracker_a: {
    label: 'Repository tracker',
    hint: 'Issues live in repositories of an account (GitHub-like REST API).',
    fields: [
      {
        key: 'account',
        label: 'Account',
        required: true,
        description: 'The user or organisation owning the repositories.',
      },
      {
        key: 'apiUrl',
        label: 'API address',
        required: false,
        type: 'url',
        description: 'Only for a self-hosted tracker; empty means the hosted service.',
      },
    ],
    token: 'optional',
    tokenLabel: 'Access token',
  },
  tracker_b: {
    label: 'Site tracker',
    hint: 'Issues live on a site of their own (Jira-like REST API, e-mail and API token).',
    fields: [
      { key: 'url', label: 'Site address', required: true, type: 'url' },
      { key: 'email', label: 'E-mail of the token', required: true, type: 'email' },
    ],
    token: 'required',
    tokenLabel: 'API token',
  },
  tracker_c: {
    label: 'Organisation tracker',
    hint: 'Issues are KEY-n in an organisation (Linear-like GraphQL API).',
    fields: [
      { key: 'organizationKey', label: 'Organisation key', required: true },
      {
        key: 'apiUrl',
        label: 'API address',
        required: false,
        type: 'url',
        description: 'Only for a self-hosted tracker; empty means the hosted service.',
      },
    ],
    token: 'optional',
    tokenLabel: 'API key',
  },
  custom: {
    label: 'Custom links',
    hint: 'No tracker is called: results link to addresses built from two templates.',
    fields: [
      { key: 'newUrl', label: '"New issue" address', required: true, type: 'url' },
      {
        key: 'viewUrl',
        label: 'Issue address',
        required: true,
        type: 'url',
        description: '{id} is replaced by the issue id.',
      },
    ],
    token: 'none',
    tokenLabel: '',
  },
};

const LABELS = new Map(
  Object.values(TYPES).flatMap((t) => t.fields.map((f) => [f.key as string, f.label] as const)),
);

/** The service names settings by their API names ("apiUrl", config.url) and types by theirs: the page's words. */
function inWords(message: string): string {
  return message
    .replace(/"(?:config\.)?([A-Za-z]+)"/g, (m, key: string) =>
      LABELS.has(key) ? `"${LABELS.get(key)}"` : m,
    )
    .replace(/\b(tracker_[abc]|custom)\b/g, (m: string) => TYPES[m as IntegrationType].label);
}

/** Refusals beside their field: `/config/url` is the `url` field, `/token` the credential, `/name` the name. */
export function integrationErrorsOf(e: unknown): FormErrors {
  if (!isApiError(e)) return { form: UNREACHABLE, fields: {} };
  const fields: Record<string, string> = {};
  for (const d of e.body.details ?? []) {
    const parts = d.path.split('/').filter(Boolean);
    const field = parts[0] === 'config' && parts[1] ? parts[1] : parts[0];
    if (field && !fields[field]) fields[field] = sentence(inWords(d.message));
  }
  if (Object.keys(fields).length === 0 && e.status === 409) fields.name = sentence(e.message);
  return Object.keys(fields).length > 0 ? { fields } : { form: sentence(e.message), fields: {} };
}
