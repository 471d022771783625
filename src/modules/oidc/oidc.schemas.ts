import { Type, type Static } from 'typebox';

import {
  providerFields,
  ProjectRule,
  RoleRule,
  SignInProviderList as SsoSignInProviderList,
} from '../sso/sso.schemas.js';

export {
  GRANTABLE_ROLES,
  ProjectRule,
  RoleRule,
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

/** What the last "Test sign-in" of a provider found (docs/api-decisions.md#openid-connect-sign-in). */
export const TestSignInOutcome = Type.Object({
  at: Type.String(),
  outcome: Type.String({
    description:
      'success, or the word a real sign-in would be refused with: provider_error, email_unverified, no_account, deactivated',
  }),
  detail: Type.Union([Type.String(), Type.Null()], { description: 'the refusal in a sentence' }),
  claims: Type.Union([
    Type.Object({
      sub: Type.String(),
      email: Type.Union([Type.String(), Type.Null()]),
      emailVerified: Type.Boolean(),
      name: Type.Union([Type.String(), Type.Null()]),
      groups: Type.Array(Type.String()),
    }),
    Type.Null(),
  ]),
  account: Type.Union([Type.Literal('existing'), Type.Literal('new'), Type.Null()], {
    description: 'existing: the sign-in would find this account; new: it would make one; null: refused',
  }),
  role: Type.Union([Type.String(), Type.Null()], { description: 'the role the person would have' }),
  roleRule: Type.Union([Type.String(), Type.Null()], {
    description: 'the group of the role rule that matched, null when none did',
  }),
  projectIds: Type.Array(Type.String(), { description: 'the projects their groups make them a member of' }),
});
export type TestSignInOutcome = Static<typeof TestSignInOutcome>;

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
  lastTest: Type.Union([TestSignInOutcome, Type.Null()], {
    description: 'the outcome of the last "Test sign-in", null before the first',
  }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type OidcProvider = Static<typeof OidcProvider>;

export const OidcProviderList = Type.Object({ providers: Type.Array(OidcProvider) });

export const OidcProviderParams = Type.Object({ providerId: Type.String({ minLength: 1, maxLength: 64 }) });

const PasswordSignInSchema = Type.Union([Type.Literal('everyone'), Type.Literal('owners')], {
  description:
    'everyone: anyone with a password signs in with it; owners: only the owner (break-glass), everyone else through an identity provider',
});

export const SignInSettings = Type.Object(
  { passwordSignIn: PasswordSignInSchema },
  { additionalProperties: false },
);

/** What the sign-in page shows: enabled providers only, nothing of their configuration, and the password policy. */
export const SignInProviderList = Type.Object({
  passwordSignIn: PasswordSignInSchema,
  providers: SsoSignInProviderList.properties.providers,
});

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
