import { randomBytes } from 'node:crypto';
import { mkdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SMTPServerAddress, SMTPServerSession } from 'smtp-server';
import type { ResolvedConfig } from '../lib/config.js';
import { log } from '../lib/log.js';
import type { InboundMail } from '../api/email-gateway/deliver.js';
import type { ShardPool } from '../host/pool.js';
import { uploadsTmpDir } from '../store/uploads.js';

/**
 * The email gateway's SMTP listener (off unless emailGateway.enabled and emailGateway.port are
 * set): the reference's email_mirror, fed by its Postfix. Recipients are checked before the
 * data (unknown addresses: 550), mail over maxMessageBytes is refused (552), and each accepted
 * recipient's shard posts the mail (api/email-gateway/deliver.ts). It relays nothing: a mail
 * whose recipients are all unknown is never accepted.
 */
export interface MailListener {
  port: number;
  close(): Promise<void>;
}

/** The From header as sent (the reference shows str(message["From"])), unfolded. */
function fromHeader(lines: readonly { key: string; line: string }[]): string | undefined {
  const line = lines.find((l) => l.key === 'from')?.line;
  return line?.replace(/^from:\s*/i, '').replace(/\r?\n\s+/g, ' ').trim();
}

/** A mail for one recipient, as parsed, its attachments in memory. */
export interface ParsedMail {
  to: string;
  from: string;
  subject: string;
  text: string | null;
  html: string | null;
  attachments: { filename: string; contentType: string; content: Buffer }[];
  /** The Auto-Submitted header, lower-cased (a missed-message reply from a robot is dropped). */
  autoSubmitted?: string;
}

export type MailResult = 'delivered' | 'unknown' | 'refused' | 'paused';

/** Another node of a cluster that knows an address (src/cluster/mail.ts), and delivery there. */
export interface MailRoute {
  knows(to: string): Promise<boolean>;
  deliver(mail: ParsedMail): Promise<MailResult>;
}

/** Delivery to this server's shards: which one knows an address, and posting a mail there. */
export function localMail(config: ResolvedConfig, pool: ShardPool, shards: () => number[]) {
  // Asked of each shard, since addresses carry no realm.
  const shardFor = async (to: string): Promise<number | null> => {
    for (const shard of new Set(shards())) if (await pool.admin<boolean>(shard, { kind: 'admin', op: 'mailRecipient', to })) return shard;
    return null;
  };
  const deliver = async (parsed: ParsedMail): Promise<MailResult> => {
    const shard = await shardFor(parsed.to);
    if (shard === null) return 'unknown';
    const dir = uploadsTmpDir(config.dataDir);
    await mkdir(dir, { recursive: true });
    // The shard moves its copies of the attachments into its uploads.
    const tmpFiles: string[] = [];
    try {
      const attachments = [];
      for (const a of parsed.attachments) {
        const tmpPath = join(dir, randomBytes(16).toString('hex'));
        await writeFile(tmpPath, a.content);
        tmpFiles.push(tmpPath);
        attachments.push({ filename: a.filename, contentType: a.contentType, tmpPath, size: a.content.length });
      }
      const mail: InboundMail = { ...parsed, attachments };
      return await pool.admin<MailResult>(shard, { kind: 'admin', op: 'mail', mail });
    } finally {
      await Promise.all(tmpFiles.map((f) => unlink(f).catch(() => undefined)));
    }
  };
  return { shardFor, deliver };
}

export async function startMailListener(config: ResolvedConfig, pool: ShardPool, shards: () => number[], remote?: MailRoute): Promise<MailListener> {
  // Loaded only for a gateway that is on: the two libraries weigh about 19 MB in the main thread.
  const [{ simpleParser }, { SMTPServer }] = await Promise.all([import('mailparser'), import('smtp-server')]);
  const local = localMail(config, pool, shards);
  const known = async (to: string) => (await local.shardFor(to)) !== null || (remote !== undefined && (await remote.knows(to)));
  const server = new SMTPServer({
    name: config.emailGateway.domain ?? config.externalHost.replace(/:\d+$/, ''),
    banner: 'Stoa email gateway',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: config.emailGateway.maxMessageBytes,
    logger: false,
    onRcptTo(address: SMTPServerAddress, _session: SMTPServerSession, callback: (err?: Error | null) => void) {
      known(address.address).then(
        (ok) => callback(ok ? null : Object.assign(new Error('Address not recognized by gateway.'), { responseCode: 550 })),
        (err) => callback(Object.assign(err instanceof Error ? err : new Error(String(err)), { responseCode: 451 })),
      );
    },
    onData(stream, session, callback) {
      (async () => {
        const parsed = await simpleParser(stream);
        if ((stream as { sizeExceeded?: boolean }).sizeExceeded) throw Object.assign(new Error('Message exceeds the fixed maximum message size'), { responseCode: 552 });
        const attachments = parsed.attachments.map((a) => ({ filename: a.filename ?? 'attachment', contentType: a.contentType, content: a.content }));
        for (const rcpt of session.envelope.rcptTo) {
          const mail: ParsedMail = { to: rcpt.address, from: fromHeader(parsed.headerLines) ?? (session.envelope.mailFrom ? session.envelope.mailFrom.address : ''), subject: parsed.subject ?? '', text: parsed.text ?? null, html: typeof parsed.html === 'string' ? parsed.html : null, attachments, autoSubmitted: String(parsed.headers.get('auto-submitted') ?? '').toLowerCase() };
          // In a cluster, mail for an organization on another node goes there.
          let result = await local.deliver(mail);
          if (result === 'unknown' && remote) result = await remote.deliver(mail);
          if (result === 'unknown') continue;
          if (result === 'paused') throw Object.assign(new Error('The organization is moving to another server; try again later.'), { responseCode: 451 });
          if (result !== 'delivered') throw Object.assign(new Error('Mail refused by gateway.'), { responseCode: 550 });
        }
      })().then(
        () => callback(null),
        (err: Error & { responseCode?: number }) => {
          if (!err.responseCode) log.error({ err }, 'email gateway: delivery failed');
          callback(Object.assign(err, { responseCode: err.responseCode ?? 451 }));
        },
      );
    },
  });
  server.on('error', (err) => log.error({ err }, 'email gateway: SMTP error'));
  const port = await new Promise<number>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(config.emailGateway.port!, config.emailGateway.bind, () => resolve((server.server.address() as { port: number }).port));
  });
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
