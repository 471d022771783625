import { Type, type Static } from 'typebox';

/**
 * What sign-in through an organisation's identity provider shares, whatever the protocol (OpenID Connect, SAML):
 * the roles a provider may give and the rules mapping its groups to a role and to projects (issue 44).
 */

/** The roles a provider may give: never owner (D3: exactly one owner, moved only by a transfer). */
export const GRANTABLE_ROLES = ['viewer', 'test-runner', 'user', 'admin'] as const;
export type GrantableRole = (typeof GRANTABLE_ROLES)[number];
const RoleSchema = Type.Unsafe<GrantableRole>({ type: 'string', enum: [...GRANTABLE_ROLES] });

const Group = Type.String({ minLength: 1, maxLength: 255, description: 'a value of the groups claim' });

export const RoleRule = Type.Object({ group: Group, role: RoleSchema }, { additionalProperties: false });
export type RoleRule = Static<typeof RoleRule>;

const ProjectRuleIn = Type.Object(
  {
    group: Group,
    projects: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
      description: 'project ids or codes',
    }),
  },
  { additionalProperties: false },
);
export type ProjectRuleIn = Static<typeof ProjectRuleIn>;

export const ProjectRule = Type.Object({ group: Type.String(), projectIds: Type.Array(Type.String()) });
export type ProjectRule = Static<typeof ProjectRule>;

/** The fields every provider has, one shape for both protocols. */
export const providerFields = {
  name: Type.String({ minLength: 1, maxLength: 100, description: 'shown on the sign-in button' }),
  enabled: Type.Boolean({ description: 'shown on the sign-in page and usable' }),
  justInTime: Type.Boolean({
    description:
      'true: a person the tenant does not know gets an account at their first sign-in; false: only people already there',
  }),
  defaultRole: Type.Unsafe<GrantableRole>({
    type: 'string',
    enum: [...GRANTABLE_ROLES],
    description: 'the role of a just-in-time account when no role rule matches',
  }),
  roleRules: Type.Array(RoleRule, {
    maxItems: 50,
    description: 'in order: the first whose group the person is in gives their role at each sign-in',
  }),
  projectRules: Type.Array(ProjectRuleIn, {
    maxItems: 50,
    description: 'every rule whose group the person is in makes them a member of its projects',
  }),
};

/** What the sign-in page shows: enabled providers only, nothing of their configuration. */
export const SignInProviderList = Type.Object({
  providers: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      startUrl: Type.String({ description: 'GET it (add returnTo) to sign in through the provider' }),
    }),
  ),
});

export const StartQuery = Type.Object({
  returnTo: Type.Optional(
    Type.String({ maxLength: 2048, description: 'a path of this site to land on; anything else lands on /' }),
  ),
});
