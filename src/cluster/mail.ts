import { KEYS, listJson, type AliveRecord } from './etcd.js';
import type { ClusterNode } from './node.js';
import { SECRET_HEADER } from './transfer.js';

/**
 * The email gateway across nodes. Channel addresses carry a token and no organization, and mail
 * arrives at whichever node the mail exchanger points to. A node that does not know an address
 * asks the other live nodes (POST /_stoa/cluster/mail with `probe`), remembers the answer for a
 * while, and hands the mail to the node that owns the organization, which posts it as its own
 * listener would (front/smtp.ts). A moved organization's old node no longer knows its addresses
 * (its shard let the realm go), so mail follows the organization.
 */
export interface RoutedAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface RoutedMail {
  to: string;
  from: string;
  subject: string;
  text: string | null;
  html: string | null;
  attachments: RoutedAttachment[];
  autoSubmitted?: string;
}

/** On the wire, attachments travel as base64. */
export interface WireMail extends Omit<RoutedMail, 'attachments'> {
  attachments: (Omit<RoutedAttachment, 'content'> & { content: string })[];
  probe?: boolean;
}

export type Delivered = 'delivered' | 'unknown' | 'refused' | 'paused';

const CACHE_MS = 60_000;

export class MailRouter {
  private readonly owners = new Map<string, { address: string; until: number }>();

  constructor(private readonly node: ClusterNode) {}

  private async post(address: string, body: WireMail): Promise<string> {
    const res = await fetch(`http://${address}/_stoa/cluster/mail`, {
      method: 'POST',
      headers: { [SECRET_HEADER]: this.node.secret, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    if (res.status !== 200) throw new Error(`mail to ${address}: ${res.status}`);
    return ((await res.json()) as { result: string }).result;
  }

  /** The address of the node that knows a channel address, if any live node does. */
  private async owner(to: string): Promise<string | null> {
    const cached = this.owners.get(to);
    if (cached && cached.until > Date.now()) return cached.address;
    const alive = await listJson<AliveRecord>(this.node.client, KEYS.alive);
    const probe: WireMail = { to, from: '', subject: '', text: null, html: null, attachments: [], probe: true };
    for (const { value } of alive.values()) {
      if (value.id === this.node.id) continue;
      const answer = await this.post(value.address, probe).catch(() => 'unknown');
      if (answer === 'known') {
        this.owners.set(to, { address: value.address, until: Date.now() + CACHE_MS });
        return value.address;
      }
    }
    return null;
  }

  async knows(to: string): Promise<boolean> {
    return (await this.owner(to)) !== null;
  }

  async deliver(mail: RoutedMail): Promise<Delivered> {
    const address = await this.owner(mail.to);
    if (!address) return 'unknown';
    const wire: WireMail = { ...mail, attachments: mail.attachments.map((a) => ({ ...a, content: a.content.toString('base64') })) };
    const result = (await this.post(address, wire)) as Delivered;
    // The organization moved on since: ask again next time.
    if (result === 'unknown') this.owners.delete(mail.to);
    return result;
  }
}

/** The receiving node's side of POST /_stoa/cluster/mail. */
export async function receiveMail(wire: WireMail, local: { known(to: string): Promise<boolean>; deliver(mail: RoutedMail): Promise<string> }): Promise<string> {
  if (wire.probe) return (await local.known(wire.to)) ? 'known' : 'unknown';
  return local.deliver({ ...wire, attachments: wire.attachments.map((a) => ({ ...a, content: Buffer.from(a.content, 'base64') })) });
}
