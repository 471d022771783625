import { errorResponses, MessageBody } from '../../http/schemas.js';
import { addRetryAfterOnThrottle } from '../auth/auth.routes.js';
import { SESSION_COOKIE, sessionIdOf } from '../auth/auth.service.js';
import { AccountUserResponse, CreatedInvitation, EmailChangeBody, InvitationIdParams, InvitationList, InviteBody, PasswordBody, PasswordChangeBody, RecoveryCodes, RoleBody, SecondFactorBody, TotpBody, TransferOwnershipBody, TwoFactorSetup, TwoFactorStatus, UserIdParams, } from './accounts.schemas.js';
import * as service from './accounts.service.js';
import * as twoFactor from './two-factor.service.js';
const ADMIN = { access: { minRole: 'admin' } };
const OWNER = { access: { minRole: 'owner' } };
const tags = ['accounts'];
/** Accounts: invitations, roles, deactivation, ownership (admin) and one's own password, e-mail and two-factor sign-in. */
export const accountsRoutes = async (app) => {
    const { db, config } = app;
    addRetryAfterOnThrottle(app);
    // ---- invitations (D3: admin) ----
    app.get('/users/invitations', {
        config: ADMIN,
        schema: {
            tags,
            summary: 'List the invitations that can still be accepted (admin)',
            response: { 200: InvitationList, ...errorResponses },
        },
    }, async (req) => ({ invitations: await service.listInvitations(db, req.actor) }));
    app.post('/users/invitations', {
        config: ADMIN,
        schema: {
            tags,
            summary: 'Invite someone by e-mail with a role (admin); the one-time link is in the answer, once',
            body: InviteBody,
            response: { 201: CreatedInvitation, ...errorResponses },
        },
    }, async (req, reply) => {
        const invitation = await service.inviteUser(db, req.actor, req.body, config.publicUrl);
        // No mail is configured: the operator reads the link from the answer or the log and passes it on.
        req.log.info({ invitationLink: invitation.link }, 'user invited (no mail configured)');
        return reply.code(201).send(invitation);
    });
    app.delete('/users/invitations/:invitationId', {
        config: ADMIN,
        schema: {
            tags,
            summary: 'Cancel an invitation (admin); its link stops working',
            params: InvitationIdParams,
            response: { 200: MessageBody, ...errorResponses },
        },
    }, async (req) => {
        await service.cancelInvitation(db, req.actor, req.params.invitationId);
        return { message: 'Invitation cancelled' };
    });
    // ---- roles, deactivation, ownership ----
    app.post('/users/:userId/role', {
        config: ADMIN,
        schema: {
            tags,
            summary: "Change a user's role (admin; never the owner's, never above one's own)",
            params: UserIdParams,
            body: RoleBody,
            response: { 200: AccountUserResponse, ...errorResponses },
        },
    }, async (req) => ({ user: await service.changeRole(db, req.actor, req.params.userId, req.body.role) }));
    app.post('/users/:userId/deactivate', {
        config: ADMIN,
        schema: {
            tags,
            summary: 'Deactivate a user (admin): sign-in, sessions and API keys stop working',
            params: UserIdParams,
            response: { 200: AccountUserResponse, ...errorResponses },
        },
    }, async (req) => ({ user: await service.setUserActive(db, req.actor, req.params.userId, false) }));
    app.post('/users/:userId/reactivate', {
        config: ADMIN,
        schema: {
            tags,
            summary: 'Reactivate a deactivated user (admin)',
            params: UserIdParams,
            response: { 200: AccountUserResponse, ...errorResponses },
        },
    }, async (req) => ({ user: await service.setUserActive(db, req.actor, req.params.userId, true) }));
    app.post('/users/transfer-ownership', {
        config: OWNER,
        schema: {
            tags,
            summary: 'Make another active user the owner (owner only); the previous owner becomes an admin',
            body: TransferOwnershipBody,
            response: { 200: AccountUserResponse, ...errorResponses },
        },
    }, async (req) => ({ user: await service.transferOwnership(db, req.actor, req.body.userId) }));
    // ---- one's own account ----
    app.post('/users/me/password', {
        schema: {
            tags,
            summary: "Change one's password (needs the current one); one's other sessions end",
            body: PasswordChangeBody,
            response: { 200: MessageBody, ...errorResponses },
        },
    }, async (req) => {
        const current = req.actor.via === 'session' ? req.cookies[SESSION_COOKIE] : undefined;
        await service.changePassword(db, req.actor, req.body, current ? sessionIdOf(current) : undefined);
        return { message: 'Password changed' };
    });
    app.post('/users/me/email', {
        schema: {
            tags,
            summary: "Change one's e-mail address (needs the password)",
            body: EmailChangeBody,
            response: { 200: AccountUserResponse, ...errorResponses },
        },
    }, async (req) => ({ user: await service.changeEmail(db, req.actor, req.body) }));
    app.get('/users/me/2fa', {
        schema: {
            tags,
            summary: 'Whether two-factor sign-in is on, and how many recovery codes are left',
            response: { 200: TwoFactorStatus, ...errorResponses },
        },
    }, async (req) => twoFactor.twoFactorStatus(db, req.actor.tenantId, req.actor.userId));
    app.post('/users/me/2fa/setup', {
        schema: {
            tags,
            summary: 'Start setting up two-factor sign-in (needs the password): a new TOTP secret, shown once',
            body: PasswordBody,
            response: { 200: TwoFactorSetup, ...errorResponses },
        },
    }, async (req) => twoFactor.beginTwoFactorSetup(db, req.actor, req.body.password, config.secretKey));
    app.post('/users/me/2fa/enable', {
        schema: {
            tags,
            summary: 'Turn two-factor sign-in on with a code from the new secret; answers the recovery codes, once',
            body: TotpBody,
            response: { 200: RecoveryCodes, ...errorResponses },
        },
    }, async (req) => twoFactor.enableTwoFactor(db, req.actor, req.body.totp, config.secretKey));
    app.post('/users/me/2fa/disable', {
        schema: {
            tags,
            summary: 'Turn two-factor sign-in off (needs the password and a code or recovery code)',
            body: SecondFactorBody,
            response: { 200: MessageBody, ...errorResponses },
        },
    }, async (req) => {
        await twoFactor.disableTwoFactor(db, req.actor, req.body, config.secretKey);
        return { message: 'Two-factor sign-in turned off' };
    });
    app.post('/users/me/2fa/recovery-codes', {
        schema: {
            tags,
            summary: 'Replace the recovery codes (needs the password and a code); the old ones stop working',
            body: SecondFactorBody,
            response: { 200: RecoveryCodes, ...errorResponses },
        },
    }, async (req) => twoFactor.regenerateRecoveryCodes(db, req.actor, req.body, config.secretKey));
};
//# sourceMappingURL=accounts.routes.js.map