import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, readFileSync, closeSync, fsyncSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import { log } from './log.js';

/** The `email` section of the configuration (lib/config.ts, schemas/config.schema.json). */
export interface EmailConfig {
  /** The From address of the server's mail; null: `Stoa <noreply@<external host name>>`. */
  from?: string | null;
  smtp?: SmtpConfig | null;
}

export interface SmtpConfig {
  host: string;
  /** 587 (submission with STARTTLS) unless set; 465 with `secure`. */
  port?: number;
  /** TLS from the first byte (port 465), instead of upgrading with STARTTLS. */
  secure?: boolean;
  /** Refuse to send unless the server upgrades to TLS. */
  requireTLS?: boolean;
  /** Never upgrade to TLS (a relay without a usable certificate). */
  ignoreTLS?: boolean;
  /** false: accept a certificate that does not verify. */
  rejectUnauthorized?: boolean;
  /** A PEM file of certificates to trust besides the system's (a relay's self-signed one). */
  caFile?: string | null;
  user?: string | null;
  password?: string | null;
}

/** What the mailer needs of the server's configuration (lib/config.ts). */
export interface MailerConfig {
  dataDir: string;
  /** host[:port] of the realm URLs; its host name makes the default From address. */
  externalHost: string;
  email?: EmailConfig;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** The From header's display name; the address stays the server's (`email.from`). */
  fromName?: string;
  replyTo?: string;
  /** `<...>`: stable across attempts, so that a copy sent again after a crash reads as the same message. */
  messageId?: string;
  /** Further headers (List-Unsubscribe, List-Id, X-Auto-Response-Suppress). */
  headers?: Record<string, string>;
}

export interface MailResult {
  via: 'smtp' | 'outbox';
  /** The outbox file, when the message was kept there. */
  path?: string;
  /** Set when SMTP was configured but refused or failed. */
  error?: string;
}

/** Milliseconds an SMTP conversation may stall before the send counts as failed. */
const SMTP_TIMEOUT_MS = 20_000;

/**
 * The server's outgoing mail (invitations). With `email.smtp` in the config, messages go out
 * through that server (nodemailer); without one, each is written as an RFC 822 file to
 * `<dataDir>/outbox` and logged with `note` (the invitation link), so that a self-hoster with no
 * mail server can still hand the links out. A message the SMTP server refuses is kept the same
 * way, with the error logged: the caller's change is committed already, and the mail can be
 * sent again (POST /invites/{id}/resend).
 */
export class Mailer {
  /** nodemailer's options for `email.smtp`, or null: mail goes to the outbox. */
  private readonly smtpOptions: Record<string, unknown> | null = null;
  // nodemailer (about 1.5 MB of heap in a shard thread) loads with the first mail: most servers
  // send mail rarely, and an idle one never.
  private smtp: Promise<Transporter> | null = null;
  private files: Promise<Transporter> | null = null;
  readonly from: string;
  readonly outboxDir: string;

  constructor(config: MailerConfig) {
    this.outboxDir = join(config.dataDir, 'outbox');
    const host = config.externalHost.replace(/:\d+$/, '');
    this.from = config.email?.from ?? `Stoa <noreply@${host}>`;
    const smtp = config.email?.smtp;
    if (smtp) {
      this.smtpOptions = {
        host: smtp.host,
        port: smtp.port ?? (smtp.secure ? 465 : 587),
        secure: smtp.secure ?? false,
        requireTLS: smtp.requireTLS ?? false,
        ignoreTLS: smtp.ignoreTLS ?? false,
        // A relay with a self-signed certificate: trust that certificate (caFile), or, as a last
        // resort, any (rejectUnauthorized: false).
        tls: { rejectUnauthorized: smtp.rejectUnauthorized ?? true, ...(smtp.caFile ? { ca: readFileSync(smtp.caFile) } : {}) },
        auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
        connectionTimeout: SMTP_TIMEOUT_MS,
        greetingTimeout: SMTP_TIMEOUT_MS,
        socketTimeout: SMTP_TIMEOUT_MS,
      };
    }
  }

  private smtpTransport(): Promise<Transporter> {
    return (this.smtp ??= import('nodemailer').then((m) => m.default.createTransport(this.smtpOptions!)));
  }

  private fileTransport(): Promise<Transporter> {
    return (this.files ??= import('nodemailer').then((m) => m.default.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })));
  }

  get usesSmtp(): boolean {
    return this.smtpOptions !== null;
  }

  /** The bare address of `from`. */
  get fromAddress(): string {
    return /<([^>]+)>/.exec(this.from)?.[1] ?? this.from;
  }

  private compose(message: MailMessage): Record<string, unknown> {
    const { fromName, headers, ...rest } = message;
    // Given as they are: nodemailer would MIME-encode a List-Id or a List-Unsubscribe URL.
    const prepared = headers && Object.fromEntries(Object.entries(headers).map(([k, value]) => [k, /^[\x20-\x7e]*$/.test(value) ? { prepared: true, value } : value]));
    return { ...rest, ...(prepared ? { headers: prepared } : {}), from: fromName ? { name: fromName, address: this.fromAddress } : this.from };
  }

  /**
   * For callers that retry on their own (api/notify/mail.ts, on the durable job mechanism): an
   * SMTP failure is thrown, not kept; without SMTP the message goes to the outbox.
   */
  async deliver(message: MailMessage): Promise<MailResult> {
    const mail = this.compose(message);
    if (this.smtpOptions) {
      await (await this.smtpTransport()).sendMail(mail);
      return { via: 'smtp' };
    }
    const path = await this.keep(mail);
    log.warn({ to: message.to, path }, `no SMTP server configured: mail to ${message.to} written to ${path}`);
    return { via: 'outbox', path };
  }

  /** Keeps a message in the outbox (one SMTP would not take, after the last attempt). */
  keepInOutbox(message: MailMessage): Promise<string> {
    return this.keep(this.compose(message));
  }

  async send(message: MailMessage, note = ''): Promise<MailResult> {
    const mail = this.compose(message);
    if (this.smtpOptions) {
      try {
        await (await this.smtpTransport()).sendMail(mail);
        return { via: 'smtp' };
      } catch (err) {
        const error = (err as Error).message;
        const path = await this.keep(mail);
        log.error({ err, to: message.to, path }, `mail to ${message.to} could not be sent; kept in ${path}. ${note}`);
        return { via: 'outbox', path, error };
      }
    }
    const path = await this.keep(mail);
    log.warn({ to: message.to, path }, `no SMTP server configured: mail to ${message.to} written to ${path}. ${note}`);
    return { via: 'outbox', path };
  }

  /** Writes the message to the outbox: a temporary name, fsynced, then renamed into place. */
  private async keep(mail: Record<string, unknown>): Promise<string> {
    const info = await (await this.fileTransport()).sendMail(mail);
    mkdirSync(this.outboxDir, { recursive: true });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`;
    const path = join(this.outboxDir, name);
    const tmp = `${path}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, info.message as Buffer);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    return path;
  }

  close(): void {
    void this.smtp?.then(
      (t) => t.close(),
      () => undefined,
    );
  }
}

const mailers = new WeakMap<MailerConfig, Mailer>();

/** The mailer for a configuration, made on first use (a shard thread has one config object). */
export function mailerFor(config: MailerConfig): Mailer {
  let mailer = mailers.get(config);
  if (!mailer) mailers.set(config, (mailer = new Mailer(config)));
  return mailer;
}
