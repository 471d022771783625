import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** The raw message with quoted-printable soft breaks undone: a long link may be wrapped. */
  text: string;
}

/**
 * A mail receiver on 127.0.0.1 (no TLS, no auth) for CASEBOOK_SMTP_URL: what the service sends lands in `inbox`;
 * tests never send mail anywhere else.
 */
export async function startMailReceiver() {
  const inbox: ReceivedMail[] = [];
  let fail = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString()));
      stream.on('end', () => {
        if (fail) return callback(new Error('mailbox unavailable'));
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          text: raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    inbox,
    url: `smtp://127.0.0.1:${port}`,
    /** While on, every mail is refused (the service's send fails). */
    failNext: (on: boolean) => (fail = on),
    /** The invitation or reset link mailed to `to`, waiting up to 10 s for it to arrive. */
    async linkFor(to: string, kind: 'invite' | 'reset-password'): Promise<string> {
      const pattern = new RegExp(`https?://[^\\s/]+/${kind}/[\\w-]{40,}`);
      const deadline = Date.now() + 10_000;
      for (;;) {
        for (const m of inbox.filter((m) => m.to.includes(to.toLowerCase()) || m.to.includes(to))) {
          const link = pattern.exec(m.text)?.[0];
          if (link) return link;
        }
        if (Date.now() > deadline) throw new Error(`no ${kind} mail for ${to}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type MailReceiver = Awaited<ReturnType<typeof startMailReceiver>>;
