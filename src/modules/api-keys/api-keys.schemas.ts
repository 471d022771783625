import { Type } from 'typebox';

export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  userId: Type.Integer(),
  userEmail: Type.String(),
  restricted: Type.Boolean({ description: 'D5: the name starts with SIEM-LOG-ONLY (audit log only)' }),
  createdAt: Type.String(),
  expiresAt: Type.Optional(Type.String()),
  revokedAt: Type.Optional(Type.String()),
  lastUsedAt: Type.Optional(Type.String()),
  kind: Type.Union(
    [Type.Literal('key'), Type.Literal('device'), Type.Literal('oauth'), Type.Literal('scim')],
    {
      description:
        "`device`: a device sign-in (`qasphere auth login`); `oauth`: an OAuth client's sign-in (an MCP client a person approved); the name of these two is the client's, and revoking one signs the client out. `scim`: an identity provider's provisioning key, accepted only under `/scim/v2`",
    },
  ),
  clientId: Type.Optional(
    Type.String({ description: 'Of a device or OAuth sign-in: the OAuth client (e.g. `qas-cli`)' }),
  ),
});

export const ApiKeyList = Type.Object({ apiKeys: Type.Array(ApiKey) });

export const CreatedApiKey = Type.Object({
  id: Type.String(),
  key: Type.String({ description: '`<tenantId>.<keyId>.<secret>`; shown only in this answer (D2)' }),
});

const keyFields = {
  name: Type.String({ maxLength: 255 }),
  expiresAt: Type.Optional(Type.String({ description: 'ISO 8601, in the future; no expiry when absent' })),
  kind: Type.Optional(
    Type.Union([Type.Literal('key'), Type.Literal('scim')], {
      description:
        "`scim`: a provisioning key for an identity provider (owner only, the owner's own): accepted only under `/scim/v2`, refused everywhere else. Default `key`",
    }),
  ),
};

export const CreateOwnKeyBody = Type.Object(keyFields, { additionalProperties: false });

export const CreateKeyBody = Type.Object(
  { userId: Type.Integer({ minimum: 1 }), ...keyFields },
  { additionalProperties: false },
);

export const KeyIdParams = Type.Object({ keyId: Type.String({ minLength: 1, maxLength: 64 }) });

export const KeyListQuery = Type.Object(
  { userId: Type.Optional(Type.Integer({ minimum: 1 })) },
  { additionalProperties: false },
);
