import nodemailer from 'nodemailer';
import type { Config } from '../config.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail; `undefined` when no mail is configured (CASEBOOK_SMTP_URL unset). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** The SMTP mailer of CASEBOOK_SMTP_URL (nodemailer: STARTTLS when the server offers it, `smtps:` for TLS). */
export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom'>): Mailer | undefined {
  if (!config.smtpUrl) return undefined;
  const transport = nodemailer.createTransport(config.smtpUrl, { from: config.mailFrom });
  return {
    async send({ to, subject, text }) {
      await transport.sendMail({ to, subject, text });
    },
    close: () => transport.close(),
  };
}

/** The mail of an invitation link (plain text: nothing to render, nothing to track). */
export const invitationMail = (to: string, link: string, role: string, expiresAt: string): MailMessage => ({
  to,
  subject: 'You are invited to Casebook',
  text: [
    `You are invited to Casebook with the role "${role}".`,
    '',
    'Open this link to choose your name and password and create your account:',
    link,
    '',
    `The link works once, until ${new Date(expiresAt).toUTCString()}.`,
    'If you did not expect this invitation, ignore this e-mail.',
  ].join('\n'),
});

export const passwordResetMail = (to: string, link: string): MailMessage => ({
  to,
  subject: 'Reset your Casebook password',
  text: [
    'Someone (hopefully you) asked to reset the password of your Casebook account.',
    '',
    'Open this link to set a new password:',
    link,
    '',
    'The link works once, within an hour. If you did not ask for it, ignore this e-mail: your password stays.',
  ].join('\n'),
});

/** The owner's check that mail leaves the service (the tenant settings' "send a test e-mail"). */
export const testMail = (to: string, publicUrl: string): MailMessage => ({
  to,
  subject: 'Casebook test e-mail',
  text: [
    `This is a test e-mail from Casebook at ${publicUrl}.`,
    '',
    'It arrived, so invitation and password-reset links will reach people too. Nothing else needs doing.',
  ].join('\n'),
});
