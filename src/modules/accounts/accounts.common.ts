import type { Db } from '../../db/create-db.js';
import type { Role } from '../../auth/roles.js';
import type { MailMessage, Mailer } from '../../mail/mailer.js';
import { recordAudit, type AuditContext } from '../audit/audit.service.js';
import { endUserSessions } from '../auth/auth.service.js';
import * as apiKeys from '../api-keys/api-keys.service.js';
import type * as users from '../users/users.service.js';

/* What the account files share: the user as they show it, how one-time links reach people, and the end of sign-ins. */

/** A user as the account endpoints show it. */
export interface AccountUser {
  id: number;
  email: string;
  name: string;
  role: Role;
  active: boolean;
}

export const toAccountUser = ({ id, email, name, role, active }: users.User): AccountUser => ({
  id,
  email,
  name,
  role,
  active,
});

/**
 * How one-time links reach people: by mail when a mailer is configured (AppContext.mailer), else in an admin's
 * answer. `log` is the request's: a failed send is logged there, never the link
 * (docs/operations.md#what-the-log-never-holds).
 */
export interface AccountMail {
  mailer: Mailer | undefined;
  /** The service's address: links point there. */
  publicUrl: string;
  log: { warn: (o: object, m: string) => void; error: (o: object, m: string) => void };
}

/**
 * The answer to an admin who made a one-time link for someone else (an invitation, a password reset): the link is
 * e-mailed when mail is configured, else it is in the answer, once. A failed send is logged as an error
 * (`sendFailed`) and answered with the link too: the link exists, so the admin gets it to pass on rather than an
 * error.
 */
export async function mailOrShowLink<T extends object>(
  mail: AccountMail,
  how: { answer: T; link: string; message: MailMessage; sendFailed: string },
): Promise<T & { emailed: boolean; link?: string }> {
  if (mail.mailer) {
    try {
      await mail.mailer.send(how.message);
      return { ...how.answer, emailed: true };
    } catch (err) {
      mail.log.error({ err }, how.sendFailed);
    }
  }
  return { ...how.answer, emailed: false, link: how.link };
}

/**
 * A password change or reset ends the user's sign-ins: every session but `exceptSessionId` and every device
 * sign-in (API keys stay: they are made on purpose and revoked on purpose). Audited as `auth.sign_ins_ended`
 * (`reason`, `sessions_ended`, `device_sign_ins_ended`) after the contract's own event, whose meta is none.
 */
export async function endSignIns(
  trx: Db,
  ctx: AuditContext,
  reason: 'password_change' | 'password_reset',
  exceptSessionId?: string,
): Promise<void> {
  const userId = ctx.userId!;
  await recordAudit(trx, ctx, reason);
  await recordAudit(trx, ctx, 'auth.sign_ins_ended', {
    reason,
    sessions_ended: await endUserSessions(trx, ctx.tenantId, userId, exceptSessionId),
    device_sign_ins_ended: await apiKeys.endDeviceSignIns(trx, ctx.tenantId, userId),
  });
}
