import { Type, type Static } from 'typebox';
import { ROLES, type Role } from '../../auth/roles.js';

export const RoleName = Type.Unsafe<Role>({ type: 'string', enum: [...ROLES] });

export const AccountUser = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  role: RoleName,
  active: Type.Boolean(),
});

export const AccountUserResponse = Type.Object({ user: AccountUser });

export const AccountUserList = Type.Object({ users: Type.Array(AccountUser) });

export const IssuedPasswordReset = Type.Object({
  user: AccountUser,
  expiresAt: Type.String({ description: 'when the link stops working (one hour)' }),
  emailed: Type.Boolean({
    description: "whether the link was e-mailed to the user's address (mail is configured)",
  }),
  link: Type.Optional(
    Type.String({
      description:
        'the one-time reset link, shown only in this answer and only when it was not e-mailed: pass it on',
    }),
  ),
});

export const UserIdParams = Type.Object({ userId: Type.Integer({ minimum: 1 }) });
export type UserIdParams = Static<typeof UserIdParams>;

export const Invitation = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: RoleName,
  invitedBy: Type.Integer({ description: 'id of the user who sent the invitation' }),
  createdAt: Type.String(),
  expiresAt: Type.String(),
  allProjects: Type.Boolean({ description: 'the invitee joins every project, those made later too' }),
  projects: Type.Array(Type.Object({ id: Type.String(), code: Type.String(), title: Type.String() }), {
    description:
      'the projects the invitee joins (when not allProjects); admins and owners see every project anyway',
  }),
});

export const CreatedInvitation = Type.Object({
  ...Invitation.properties,
  emailed: Type.Boolean({ description: 'whether the link was e-mailed to the invitee (mail is configured)' }),
  link: Type.Optional(
    Type.String({
      description:
        'the one-time sign-up link, shown only in this answer and only when it was not e-mailed: pass it on',
    }),
  ),
});

export const InvitationList = Type.Object({ invitations: Type.Array(Invitation) });

export const InviteBody = Type.Object(
  {
    email: Type.String({ maxLength: 255 }),
    role: RoleName,
    projects: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: 500,
        description: 'projects (ids or codes) the invitee joins on accepting',
      }),
    ),
    allProjects: Type.Optional(
      Type.Boolean({
        description:
          "every project, those made later too; neither this nor projects: the tenant's default for new members",
      }),
    ),
  },
  { additionalProperties: false },
);
export type InviteBody = Static<typeof InviteBody>;

export const AccessDefaults = Type.Object(
  {
    newMembersJoinAllProjects: Type.Boolean({
      description: 'invitations that name no projects grant every project, those made later too',
    }),
  },
  { additionalProperties: false },
);

export const InvitationIdParams = Type.Object({ invitationId: Type.String({ minLength: 1, maxLength: 64 }) });

export const RoleBody = Type.Object({ role: RoleName }, { additionalProperties: false });

export const TransferOwnershipBody = Type.Object(
  { userId: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);

export const PasswordChangeBody = Type.Object(
  { currentPassword: Type.String({ maxLength: 1024 }), newPassword: Type.String({ maxLength: 1024 }) },
  { additionalProperties: false },
);

export const NameChangeBody = Type.Object(
  { name: Type.String({ maxLength: 255 }) },
  { additionalProperties: false },
);

export const EmailChangeBody = Type.Object(
  { email: Type.String({ maxLength: 255 }), password: Type.String({ maxLength: 1024 }) },
  { additionalProperties: false },
);

export const TwoFactorStatus = Type.Object({
  enabled: Type.Boolean(),
  recoveryCodesLeft: Type.Integer(),
});

export const PasswordBody = Type.Object(
  { password: Type.String({ maxLength: 1024 }) },
  { additionalProperties: false },
);

export const TwoFactorSetup = Type.Object({
  secret: Type.String({ description: 'base32 TOTP secret; shown once' }),
  otpauthUrl: Type.String({ description: '`otpauth://` URL for an authenticator app (QR code)' }),
});

export const TotpBody = Type.Object(
  { totp: Type.String({ maxLength: 16, description: 'a 6-digit code from the new secret' }) },
  { additionalProperties: false },
);

export const SecondFactorBody = Type.Object(
  {
    password: Type.String({ maxLength: 1024 }),
    totp: Type.Optional(Type.String({ maxLength: 16 })),
    recoveryCode: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const RecoveryCodes = Type.Object({
  recoveryCodes: Type.Array(Type.String(), { description: 'one-time codes; shown once, stored hashed' }),
});

// ---- the web application's sign-up and password-reset pages (private API, under /api/auth) ----

export const RegisterBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 256, description: 'the token of the invitation link' }),
    name: Type.String({ maxLength: 255 }),
    password: Type.String({ maxLength: 1024 }),
  },
  { additionalProperties: false },
);
export type RegisterBody = Static<typeof RegisterBody>;

export const RegisterResponse = Type.Object({ id: Type.Integer(), email: Type.String() });

export const InvitationTokenBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 256, description: 'the token of the invitation link' }) },
  { additionalProperties: false },
);

export const InvitationPreview = Type.Object({
  email: Type.String(),
  role: Type.String(),
  expiresAt: Type.String(),
});

export const PasswordResetRequestBody = Type.Object(
  { email: Type.String({ maxLength: 255 }) },
  { additionalProperties: false },
);

export const PasswordResetBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 256, description: 'the token of the reset link' }),
    password: Type.String({ maxLength: 1024 }),
  },
  { additionalProperties: false },
);
export type PasswordResetBody = Static<typeof PasswordResetBody>;

export const TestMailResult = Type.Object({
  sent: Type.Boolean({ description: 'true when the mail server accepted the e-mail' }),
  to: Type.String({ description: "the owner's address it went to" }),
  error: Type.Optional(Type.String({ description: "the mail server's refusal, when not sent" })),
});
export type TestMailResult = Static<typeof TestMailResult>;

export const InstanceDetails = Type.Object({
  tenant: Type.Object({
    id: Type.String(),
    name: Type.String(),
    host: Type.Union([Type.String(), Type.Null()], { description: 'null: the default tenant of any host' }),
    features: Type.Array(Type.String()),
    createdAt: Type.String(),
  }),
  publicUrl: Type.String({ description: 'the address links in e-mails and shared reports point to' }),
  publicUrlSet: Type.Boolean({
    description: 'false: CASEBOOK_PUBLIC_URL is not set, the address is guessed',
  }),
  mail: Type.Object({
    configured: Type.Boolean({ description: 'false: CASEBOOK_SMTP_URL is not set, no e-mail is sent' }),
    server: Type.Optional(Type.String({ description: 'scheme, host and port; never the credentials' })),
    from: Type.Optional(Type.String({ description: 'the sender address (CASEBOOK_MAIL_FROM)' })),
  }),
});
export type InstanceDetails = Static<typeof InstanceDetails>;
