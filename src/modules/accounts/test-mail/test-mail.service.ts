import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { conflict } from '../../../errors.js';
import { testMail } from '../../../mail/mailer.js';
import { getUser } from '../../users/users.service.js';
import type { AccountMail } from '../accounts.common.js';
import type { TestMailResult } from '../accounts.schemas.js';

/** The mail server's refusal in a line the owner can read (its first line: SMTP replies can run long). */
const reasonOf = (err: unknown): string =>
  (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 300);

/**
 * Sends a test e-mail to the owner's own address through the configured mailer (owner only, D3). 409 when no
 * mail is configured: there is nothing to test, and the words say what to set. A refusal by the mail server is
 * the test's answer, not an error (200, `sent: false` with the server's reason), like a webhook's ping.
 */
export async function sendTestMail(db: Db, actor: Actor, mail: AccountMail): Promise<TestMailResult> {
  if (!mail.mailer)
    throw conflict(
      'mail is not configured: set CASEBOOK_SMTP_URL (and CASEBOOK_MAIL_FROM) and restart the service',
    );
  const { email: to } = await getUser(db, actor.tenantId, actor.userId);
  try {
    await mail.mailer.send(testMail(to, mail.publicUrl));
    return { sent: true, to };
  } catch (err) {
    mail.log.warn({ err }, 'the test e-mail was not sent');
    return { sent: false, to, error: reasonOf(err) };
  }
}
