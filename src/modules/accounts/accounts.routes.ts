import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { errorResponses, MessageBody } from '../../http/schemas.js';
import { addRetryAfterOnThrottle, requestSource } from '../../http/auth.js';
import { SESSION_COOKIE, sessionIdOf } from '../auth/auth.service.js';
import {
  AccountUserList,
  AccountUserResponse,
  CreatedInvitation,
  IssuedPasswordReset,
  EmailChangeBody,
  NameChangeBody,
  AccessDefaults,
  InvitationIdParams,
  InvitationList,
  InviteBody,
  PasswordBody,
  PasswordChangeBody,
  RecoveryCodes,
  RoleBody,
  SecondFactorBody,
  TotpBody,
  TransferOwnershipBody,
  TwoFactorSetup,
  TwoFactorStatus,
  UserIdParams,
  InvitationPreview,
  InvitationTokenBody,
  PasswordResetBody,
  PasswordResetRequestBody,
  RegisterBody,
  RegisterResponse,
  TestMailResult,
  InstanceDetails,
} from './accounts.schemas.js';
import type { AccountMail } from './accounts.common.js';
import * as service from './accounts.service.js';
import * as invitations from './invitations/invitations.service.js';
import * as resets from './password-resets/password-resets.service.js';
import { sendTestMail } from './test-mail/test-mail.service.js';
import { instanceDetails } from './instance/instance.service.js';
import * as twoFactor from '../auth/two-factor.service.js';

const ADMIN = { access: { minRole: 'admin' as const } };
const OWNER = { access: { minRole: 'owner' as const } };
/** Changes to how one's account signs in: the session cookie only (src/http/auth.ts). */
const SIGN_IN_CHANGE = {
  access: {
    sessionOnly:
      'this changes how the account signs in: sign in to the web page to do it; API keys and device tokens may not',
  },
};
const tags = ['accounts'];

/** How the service mails links (AppContext.mailer), with the request's log for a failed send. */
const mailOf =
  ({ ctx, config }: FastifyInstance) =>
  (log: FastifyBaseLogger): AccountMail => ({ mailer: ctx.mailer, publicUrl: config.publicUrl, log });

/** Accounts: invitations, roles, deactivation, ownership (admin) and one's own password, e-mail and two-factor sign-in. */
export const accountsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app;
  const mail = mailOf(app);
  addRetryAfterOnThrottle(app);

  // ---- invitations (D3: admin) ----

  app.get(
    '/users/invitations',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'List the invitations that can still be accepted (admin)',
        response: { 200: InvitationList, ...errorResponses },
      },
    },
    async (req) => ({ invitations: await invitations.listInvitations(db, req.actor) }),
  );

  app.post(
    '/users/invitations',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Invite someone by e-mail with a role (admin); the one-time link is in the answer, once',
        body: InviteBody,
        response: { 201: CreatedInvitation, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await invitations.sendInvitation(db, req.actor, req.body, mail(req.log))),
  );

  app.get(
    '/users/access-defaults',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'What new members are given (admin): whether they join every project by default',
        response: { 200: AccessDefaults, ...errorResponses },
      },
    },
    async (req) => invitations.accessDefaults(db, req.actor),
  );

  app.put(
    '/users/access-defaults',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Set what new members are given (admin); audited as access_defaults.updated',
        body: AccessDefaults,
        response: { 200: AccessDefaults, ...errorResponses },
      },
    },
    async (req) => invitations.setAccessDefaults(db, req.actor, req.body),
  );

  app.delete(
    '/users/invitations/:invitationId',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Cancel an invitation (admin); its link stops working',
        params: InvitationIdParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await invitations.cancelInvitation(db, req.actor, req.params.invitationId);
      return { message: 'Invitation cancelled' };
    },
  );

  // ---- the tenant's accounts (the People page), roles, deactivation, password resets, ownership ----

  app.get(
    '/users/accounts',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'List the users of the tenant with whether they are active (admin)',
        response: { 200: AccountUserList, ...errorResponses },
      },
    },
    async (req) => ({ users: await service.listAccounts(db, req.actor) }),
  );

  app.post(
    '/users/:userId/password-reset',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Issue a one-time password reset link for a user (admin; not for oneself, the owner or a deactivated user): e-mailed when mail is configured, else in the answer, once',
        params: UserIdParams,
        response: { 201: IssuedPasswordReset, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await resets.sendPasswordResetFor(db, req.actor, req.params.userId, mail(req.log))),
  );

  app.post(
    '/users/:userId/role',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: "Change a user's role (admin; never the owner's, never above one's own)",
        params: UserIdParams,
        body: RoleBody,
        response: { 200: AccountUserResponse, ...errorResponses },
      },
    },
    async (req) => ({ user: await service.changeRole(db, req.actor, req.params.userId, req.body.role) }),
  );

  app.post(
    '/users/:userId/deactivate',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Deactivate a user (admin): sign-in, sessions and API keys stop working',
        params: UserIdParams,
        response: { 200: AccountUserResponse, ...errorResponses },
      },
    },
    async (req) => ({ user: await service.setUserActive(db, req.actor, req.params.userId, false) }),
  );

  app.post(
    '/users/:userId/reactivate',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Reactivate a deactivated user (admin)',
        params: UserIdParams,
        response: { 200: AccountUserResponse, ...errorResponses },
      },
    },
    async (req) => ({ user: await service.setUserActive(db, req.actor, req.params.userId, true) }),
  );

  app.post(
    '/users/transfer-ownership',
    {
      config: OWNER,
      schema: {
        tags,
        summary: 'Make another active user the owner (owner only); the previous owner becomes an admin',
        body: TransferOwnershipBody,
        response: { 200: AccountUserResponse, ...errorResponses },
      },
    },
    async (req) => ({ user: await service.transferOwnership(db, req.actor, req.body.userId) }),
  );

  app.get(
    '/settings/instance',
    {
      config: OWNER,
      schema: {
        tags,
        summary:
          "The tenant's details, public address and mail settings status (owner only; never credentials)",
        response: { 200: InstanceDetails, ...errorResponses },
      },
    },
    async (req) => instanceDetails(db, req.actor, config),
  );

  app.post(
    '/settings/mail/test',
    {
      config: OWNER,
      schema: {
        tags,
        summary:
          "Send a test e-mail to the owner's address (owner only); 409 when mail is not configured, sent: false with the server's refusal",
        response: { 200: TestMailResult, ...errorResponses },
      },
    },
    async (req) => sendTestMail(db, req.actor, mail(req.log)),
  );

  // ---- one's own account ----

  app.post(
    '/users/me/password',
    {
      config: SIGN_IN_CHANGE,
      schema: {
        tags,
        summary: "Change one's password (needs the current one); one's other sessions end",
        body: PasswordChangeBody,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      const current = req.actor.via === 'session' ? req.cookies[SESSION_COOKIE] : undefined;
      await service.changePassword(db, req.actor, req.body, current ? sessionIdOf(current) : undefined);
      return { message: 'Password changed' };
    },
  );

  app.patch(
    '/users/me',
    {
      schema: {
        tags,
        summary: "Change one's display name",
        body: NameChangeBody,
        response: { 200: AccountUserResponse, ...errorResponses },
      },
    },
    async (req) => ({ user: await service.changeName(db, req.actor, req.body.name) }),
  );

  app.post(
    '/users/me/email',
    {
      config: SIGN_IN_CHANGE,
      schema: {
        tags,
        summary: "Change one's e-mail address (needs the password)",
        body: EmailChangeBody,
        response: { 200: AccountUserResponse, ...errorResponses },
      },
    },
    async (req) => ({ user: await service.changeEmail(db, req.actor, req.body) }),
  );

  app.get(
    '/users/me/2fa',
    {
      schema: {
        tags,
        summary: 'Whether two-factor sign-in is on, and how many recovery codes are left',
        response: { 200: TwoFactorStatus, ...errorResponses },
      },
    },
    async (req) => twoFactor.twoFactorStatus(db, req.actor.tenantId, req.actor.userId),
  );

  app.post(
    '/users/me/2fa/setup',
    {
      config: SIGN_IN_CHANGE,
      schema: {
        tags,
        summary: 'Start setting up two-factor sign-in (needs the password): a new TOTP secret, shown once',
        body: PasswordBody,
        response: { 200: TwoFactorSetup, ...errorResponses },
      },
    },
    async (req) => twoFactor.beginTwoFactorSetup(db, req.actor, req.body.password, config.secretKey),
  );

  app.post(
    '/users/me/2fa/enable',
    {
      config: SIGN_IN_CHANGE,
      schema: {
        tags,
        summary:
          'Turn two-factor sign-in on with a code from the new secret; answers the recovery codes, once',
        body: TotpBody,
        response: { 200: RecoveryCodes, ...errorResponses },
      },
    },
    async (req) => twoFactor.enableTwoFactor(db, req.actor, req.body.totp, config.secretKey),
  );

  app.post(
    '/users/me/2fa/disable',
    {
      config: SIGN_IN_CHANGE,
      schema: {
        tags,
        summary: 'Turn two-factor sign-in off (needs the password and a code or recovery code)',
        body: SecondFactorBody,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await twoFactor.disableTwoFactor(db, req.actor, req.body, config.secretKey);
      return { message: 'Two-factor sign-in turned off' };
    },
  );

  app.post(
    '/users/me/2fa/recovery-codes',
    {
      config: SIGN_IN_CHANGE,
      schema: {
        tags,
        summary: 'Replace the recovery codes (needs the password and a code); the old ones stop working',
        body: SecondFactorBody,
        response: { 200: RecoveryCodes, ...errorResponses },
      },
    },
    async (req) => twoFactor.regenerateRecoveryCodes(db, req.actor, req.body, config.secretKey),
  );
};

const PUBLIC = { access: { public: true } };

/**
 * The sign-up and password-reset pages of the web application (private API, under `/api/auth`): they need no
 * session, and they belong to accounts, which manages invitations and passwords.
 */
export const accountsPrivateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;
  const mail = mailOf(app);
  addRetryAfterOnThrottle(app);

  // Work that goes on after the answer; closing the app waits for it.
  const pending = new Set<Promise<void>>();
  const inBackground = (work: () => Promise<void>) => {
    const task = work().finally(() => pending.delete(task));
    pending.add(task);
  };
  app.addHook('onClose', async () => {
    await Promise.allSettled([...pending]);
  });

  // A POST, not GET /…/:token: the token stays out of URLs and so out of request logs.
  app.post(
    '/auth/invitation',
    {
      config: PUBLIC,
      schema: {
        tags: ['auth'],
        summary:
          'What an invitation link is for (the sign-up page shows it); 404 when invalid, expired or used',
        body: InvitationTokenBody,
        response: { 200: InvitationPreview, ...errorResponses },
      },
    },
    async (req) =>
      invitations.previewInvitation(db, (await requestSource(app, req)).tenantId, req.body.token),
  );

  app.post(
    '/auth/register',
    {
      config: PUBLIC,
      schema: {
        tags: ['auth'],
        summary: 'Accept an invitation: create the account with the invited e-mail and role',
        body: RegisterBody,
        response: { 201: RegisterResponse, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await invitations.acceptInvitation(db, await requestSource(app, req), req.body)),
  );

  app.post(
    '/auth/password-reset/request',
    {
      config: PUBLIC,
      schema: {
        tags: ['auth'],
        summary: 'Ask for a password reset link; the answer is the same whether or not the account exists',
        body: PasswordResetRequestBody,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      const source = await requestSource(app, req);
      // Throttled per address (429) and per account (quietly no more links), the same work whatever the e-mail.
      const admitted = await resets.admitPasswordResetRequest(db, source, req.body.email);
      // Whether the account exists is found out after the answer: how long it takes tells nothing.
      if (admitted) inBackground(() => resets.mailPasswordReset(db, source, req.body.email, mail(req.log)));
      return { message: 'If the account exists, a reset link has been issued' };
    },
  );

  app.post(
    '/auth/password-reset',
    {
      config: PUBLIC,
      schema: {
        tags: ['auth'],
        summary: 'Set a new password with a reset link; every session of the user ends',
        body: PasswordResetBody,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await resets.resetPassword(db, await requestSource(app, req), req.body);
      return { message: 'Password reset' };
    },
  );
};
