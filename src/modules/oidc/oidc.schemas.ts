import { Type, type Static } from 'typebox';

import { providerFields, ProjectRule, RoleRule } from '../sso/sso.schemas.js';

export {
  GRANTABLE_ROLES,
  ProjectRule,
  RoleRule,
  SignInProviderList,
  StartQuery,
  type GrantableRole,
  type ProjectRuleIn,
} from '../sso/sso.schemas.js';

const ClaimName = Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\s]+$' });

const fields = {
  name: providerFields.name,
  issuer: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      'the issuer URL (its /.well-known/openid-configuration is read): https, http only for hosts allowed by CASEBOOK_OUTBOUND_ALLOW',
  }),
  clientId: Type.String({ minLength: 1, maxLength: 255 }),
  clientSecret: Type.String({
    minLength: 1,
    maxLength: 1024,
    description:
      'write-only: sealed with the secret key, never returned; send it again when the issuer changes',
  }),
  enabled: providerFields.enabled,
  justInTime: providerFields.justInTime,
  defaultRole: providerFields.defaultRole,
  scopes: Type.Array(
    Type.String({ minLength: 1, maxLength: 100, pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$' }),
    {
      maxItems: 20,
      uniqueItems: true,
      description: 'asked beside openid, email and profile (e.g. groups)',
    },
  ),
  nameClaim: ClaimName,
  groupsClaim: ClaimName,
  roleRules: providerFields.roleRules,
  projectRules: providerFields.projectRules,
};

export const CreateOidcProviderBody = Type.Object(
  {
    name: fields.name,
    issuer: fields.issuer,
    clientId: fields.clientId,
    clientSecret: fields.clientSecret,
    enabled: Type.Optional(fields.enabled),
    justInTime: Type.Optional(fields.justInTime),
    defaultRole: Type.Optional(fields.defaultRole),
    scopes: Type.Optional(fields.scopes),
    nameClaim: Type.Optional(fields.nameClaim),
    groupsClaim: Type.Optional(fields.groupsClaim),
    roleRules: Type.Optional(fields.roleRules),
    projectRules: Type.Optional(fields.projectRules),
  },
  { additionalProperties: false },
);
export type CreateOidcProviderBody = Static<typeof CreateOidcProviderBody>;

export const UpdateOidcProviderBody = Type.Partial(CreateOidcProviderBody, { additionalProperties: false });
export type UpdateOidcProviderBody = Static<typeof UpdateOidcProviderBody>;

export const OidcProvider = Type.Object({
  id: Type.String(),
  name: Type.String(),
  issuer: Type.String(),
  clientId: Type.String(),
  hasClientSecret: Type.Boolean({ description: 'always true: the secret itself is never returned' }),
  enabled: Type.Boolean(),
  justInTime: Type.Boolean(),
  defaultRole: Type.String(),
  scopes: Type.Array(Type.String()),
  nameClaim: Type.String(),
  groupsClaim: Type.String(),
  roleRules: Type.Array(RoleRule),
  projectRules: Type.Array(ProjectRule),
  redirectUri: Type.String({ description: 'the redirect URI to register at the provider' }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type OidcProvider = Static<typeof OidcProvider>;

export const OidcProviderList = Type.Object({ providers: Type.Array(OidcProvider) });

export const OidcProviderParams = Type.Object({ providerId: Type.String({ minLength: 1, maxLength: 64 }) });

export const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 512 })),
    iss: Type.Optional(Type.String({ maxLength: 2048 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 2048 })),
    session_state: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { additionalProperties: true },
);
