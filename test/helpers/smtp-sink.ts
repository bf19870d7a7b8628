import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server on localhost (smtp-server, as the email gateway uses), standing in for the
 * operator's mail server: it accepts every message, parses it (mailparser) and keeps it.
 * `onData` may hold a message (answer later, or never) or refuse it with a temporary failure.
 */
export interface SunkMail {
  to: string[];
  from: string;
  parsed: ParsedMail;
  raw: string;
  header(name: string): string | undefined;
}

export interface SmtpSink {
  port: number;
  mails: SunkMail[];
  /** Resolves with the first `count` mails for `to` (the address), waiting for them. */
  waitFor(to: string, count?: number, timeoutMs?: number): Promise<SunkMail[]>;
  /** The mails for an address so far. */
  to(address: string): SunkMail[];
  /** Decides each message's fate before it is kept: 'accept', 'fail' (451), or 'hang' (no answer). */
  policy: (n: number) => 'accept' | 'fail' | 'hang';
  /** How many DATA commands came (accepted, failed or hung). */
  attempts: number;
  /** Messages held without an answer (policy 'hang'): the sender never learned they arrived. */
  held: SunkMail[];
  close(): Promise<void>;
}

export async function startSmtpSink(t: { teardown(fn: () => unknown): void }): Promise<SmtpSink> {
  const mails: SunkMail[] = [];
  const waiters: (() => void)[] = [];
  const sink: SmtpSink = {
    port: 0,
    mails,
    attempts: 0,
    held: [],
    policy: () => 'accept',
    to: (address) => mails.filter((m) => m.to.includes(address.toLowerCase())),
    async waitFor(to, count = 1, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (sink.to(to).length < count) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} mail(s) to ${to}; have ${sink.to(to).length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 250);
        });
      }
      return sink.to(to).slice(0, count);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const n = sink.attempts++;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const fate = sink.policy(n);
        if (fate === 'fail') return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (parsed) => {
            (fate === 'hang' ? sink.held : mails).push({
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              parsed,
              raw,
              // As sent, unfolded (mailparser turns some headers into objects).
              header: (name) => {
                const line = parsed.headerLines.find((l) => l.key === name.toLowerCase())?.line;
                return line?.slice(line.indexOf(':') + 1).replace(/\r?\n\s+/g, ' ').trim();
              },
            });
            for (const wake of waiters.splice(0)) wake();
            if (fate !== 'hang') callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  sink.port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port)));
  t.teardown(() => sink.close());
  return sink;
}
