import { Type, type Static } from 'typebox';

export const INTEGRATION_TYPES = ['tracker_a', 'tracker_b', 'tracker_c', 'custom'] as const;
export type IntegrationType = (typeof INTEGRATION_TYPES)[number];
export const IntegrationTypeSchema = Type.Union(
  [Type.Literal('tracker_a'), Type.Literal('tracker_b'), Type.Literal('tracker_c'), Type.Literal('custom')],
  {
    description:
      'tracker_a: repository-based; tracker_b: site-based; tracker_c: organisation-based; custom: link target',
  },
);

const Text = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });

/** Every setting any type may carry; the service checks which ones the type takes (400 naming the field). */
export const IntegrationConfigInput = Type.Object(
  {
    account: Type.Optional(Text('tracker_a: the account (user or organisation) owning the repositories')),
    url: Type.Optional(Text('tracker_b: the site URL, http(s)')),
    email: Type.Optional(Text('tracker_b: the e-mail the token belongs to')),
    organizationKey: Type.Optional(Text('tracker_c: the organisation key (issue keys are <KEY>-<number>)')),
    apiUrl: Type.Optional(
      Text(
        'tracker_a and tracker_c, optional: the API base URL of a self-hosted tracker, http(s) (default: the hosted service)',
      ),
    ),
    newUrl: Type.Optional(Text('custom: URL template of the "new issue" page, http(s)')),
    viewUrl: Type.Optional(
      Text('custom: URL template of an issue, http(s); {id} is replaced by the issue id'),
    ),
  },
  { additionalProperties: false },
);
export type IntegrationConfigInput = Static<typeof IntegrationConfigInput>;

export const IntegrationConfig = Type.Object(
  {
    account: Type.Optional(Type.String()),
    url: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
    organizationKey: Type.Optional(Type.String()),
    apiUrl: Type.Optional(Type.String()),
    newUrl: Type.Optional(Type.String()),
    viewUrl: Type.Optional(Type.String()),
  },
  { description: 'the non-secret settings of the type' },
);

export const Integration = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: IntegrationTypeSchema,
  config: IntegrationConfig,
  hasToken: Type.Boolean({ description: 'a credential is stored; it is never returned' }),
  linkedProjectCount: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type Integration = Static<typeof Integration>;

export const IntegrationList = Type.Object({ integrations: Type.Array(Integration) });

export const CreateIntegrationBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    type: IntegrationTypeSchema,
    config: Type.Optional(IntegrationConfigInput),
    token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description:
          'tracker credential (tracker_b: required; custom: none); stored AES-256-GCM encrypted, never returned',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateIntegrationBody = Static<typeof CreateIntegrationBody>;

export const UpdateIntegrationBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    config: Type.Optional(IntegrationConfigInput),
    token: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()], {
        description:
          'a new credential; null removes it; a stored one must be sent again (the same or a new one) when config.url or config.apiUrl moves the tracker to another origin (scheme, host, port)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateIntegrationBody = Static<typeof UpdateIntegrationBody>;

export const IntegrationParams = Type.Object({ integrationId: Type.String({ minLength: 1, maxLength: 64 }) });
export const ProjectIntegrationParams = Type.Object({
  project: Type.String({ minLength: 1, maxLength: 64 }),
  integrationId: Type.String({ minLength: 1, maxLength: 64 }),
});

export const LinkConfigInput = Type.Object(
  {
    repo: Type.Optional(Text('tracker_a: the repository')),
    projectId: Type.Optional(Text('tracker_b: the tracker project id')),
    projectName: Type.Optional(Text('tracker_b: the tracker project name')),
    teamId: Type.Optional(Text('tracker_c: the team id')),
    teamName: Type.Optional(Text('tracker_c: the team name')),
  },
  { additionalProperties: false },
);
export type LinkConfigInput = Static<typeof LinkConfigInput>;

export const LinkProjectBody = Type.Object(
  { integrationId: Type.String({ minLength: 1, maxLength: 64 }), config: Type.Optional(LinkConfigInput) },
  { additionalProperties: false },
);
export type LinkProjectBody = Static<typeof LinkProjectBody>;

export const ProjectIntegration = Type.Object({
  integrationId: Type.String(),
  name: Type.String(),
  type: IntegrationTypeSchema,
  config: Type.Object(
    {
      repo: Type.Optional(Type.String()),
      projectId: Type.Optional(Type.String()),
      projectName: Type.Optional(Type.String()),
      teamId: Type.Optional(Type.String()),
      teamName: Type.Optional(Type.String()),
    },
    { description: 'the per-project settings of the link' },
  ),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type ProjectIntegration = Static<typeof ProjectIntegration>;

export const ProjectIntegrationList = Type.Object({ integrations: Type.Array(ProjectIntegration) });

/** The settings of the integration form as typed, to test before saving (docs/api-decisions.md#integration-connection-test). */
export const TestSettingsBody = Type.Object(
  {
    type: IntegrationTypeSchema,
    config: Type.Optional(IntegrationConfigInput),
    token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: 'the credential typed; without it, the stored one of integrationId (if any)',
      }),
    ),
    integrationId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'the integration being edited: config is applied over its settings and its stored credential is used when no token is sent (not when the settings move the tracker to another origin)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TestSettingsBody = Static<typeof TestSettingsBody>;

export const ConnectionCheck = Type.Object({
  ok: Type.Boolean({ description: 'the tracker accepted the stored credential' }),
  status: Type.Union([Type.Integer(), Type.Null()], {
    description: "the tracker's HTTP status, or null when no answer came (or no request was made)",
  }),
  message: Type.String({
    description:
      'in words: who the tracker knows the credential as, or why it refused (its status and its own message, the credential masked), or why no answer came (timeout, unknown host, refused address)',
  }),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
});
export type ConnectionCheck = Static<typeof ConnectionCheck>;
