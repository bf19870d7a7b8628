import type { Message } from '../types.js';

/**
 * A narrow is a value (shared/style.md 14): the terms of one view (a channel, a topic, a DM
 * conversation, mentions, starred, a search), frozen. From it come the API's `narrow`
 * parameter, the URL hash, the sidebar's highlight and the test of whether a message belongs
 * in the view. Channels and people are held by id, as the server's operators take them.
 */
export interface Term {
  readonly operator: string;
  readonly operand: string | number | readonly number[];
  readonly negated?: boolean;
}

/** Zulip's hash encoding: percent-encoding with '.' in place of '%' (hash_util.ts). */
export const encodeHash = (s: string) => encodeURIComponent(s).replace(/\./g, '%2E').replace(/%/g, '.');
export const decodeHash = (s: string) => {
  try {
    return decodeURIComponent(s.replace(/\./g, '%'));
  } catch {
    return s;
  }
};
const slug = (name: string) => name.replace(/[\s/]+/g, '-');

export class Narrow {
  readonly terms: readonly Term[];
  /** A message to open the view at (a link to one message: `/near/<id>`). */
  readonly near: number | null;

  private constructor(terms: Term[], near: number | null = null) {
    this.terms = Object.freeze(terms.map((t) => Object.freeze({ ...t })));
    this.near = near;
    Object.freeze(this);
  }

  static readonly all = new Narrow([]);
  static channel = (streamId: number) => new Narrow([{ operator: 'channel', operand: streamId }]);
  static topic = (streamId: number, topic: string) => new Narrow([{ operator: 'channel', operand: streamId }, { operator: 'topic', operand: topic }]);
  /** A DM conversation, named by the other participants (none: with oneself). */
  static dm = (userIds: readonly number[]) => new Narrow([{ operator: 'dm', operand: [...userIds].sort((a, b) => a - b) }]);
  static is = (what: 'starred' | 'mentioned' | 'dm' | 'unread') => new Narrow([{ operator: 'is', operand: what }]);
  static of = (terms: Term[], near: number | null = null) => new Narrow(terms, near);

  withNear(id: number | null): Narrow {
    return new Narrow([...this.terms], id);
  }

  term(operator: string): Term | undefined {
    return this.terms.find((t) => t.operator === operator && !t.negated);
  }
  get streamId(): number | undefined {
    const t = this.term('channel');
    return typeof t?.operand === 'number' ? t.operand : undefined;
  }
  get topic(): string | undefined {
    const t = this.term('topic');
    return typeof t?.operand === 'string' ? t.operand : undefined;
  }
  get dmIds(): readonly number[] | undefined {
    const t = this.term('dm');
    return Array.isArray(t?.operand) ? (t!.operand as readonly number[]) : undefined;
  }
  get isSearch(): boolean {
    return this.terms.some((t) => t.operator === 'search');
  }

  /** The `narrow` parameter of GET /messages. */
  apiTerms(): { operator: string; operand: unknown; negated?: boolean }[] {
    return this.terms.map((t) => ({ operator: t.operator, operand: t.operand, ...(t.negated ? { negated: true } : {}) }));
  }

  /** The same view: equal terms (the message it was opened at aside). */
  equals(other: Narrow): boolean {
    return JSON.stringify(this.terms) === JSON.stringify(other.terms);
  }

  /**
   * Whether a message belongs to the view: true, false, or undefined when only the server can
   * tell (a search, `has:`): such views take new messages by fetching again.
   */
  contains(msg: Message, selfId: number): boolean | undefined {
    let known = true;
    for (const t of this.terms) {
      let hit: boolean | undefined;
      switch (t.operator) {
        case 'channel':
          hit = msg.type === 'stream' && msg.stream_id === t.operand;
          break;
        case 'topic':
          hit = msg.type === 'stream' && msg.subject.toLowerCase() === String(t.operand).toLowerCase();
          break;
        case 'dm': {
          const ids = new Set([selfId, ...(t.operand as number[])]);
          const people = Array.isArray(msg.display_recipient) ? msg.display_recipient.map((r) => r.id) : [];
          hit = msg.type === 'private' && people.length === ids.size && people.every((id) => ids.has(id));
          break;
        }
        case 'sender':
          hit = msg.sender_id === t.operand;
          break;
        case 'is':
          if (t.operand === 'starred') hit = msg.flags.includes('starred');
          else if (t.operand === 'mentioned') hit = msg.flags.some((f) => f === 'mentioned' || f === 'stream_wildcard_mentioned' || f === 'topic_wildcard_mentioned' || f === 'has_alert_word');
          else if (t.operand === 'dm') hit = msg.type === 'private';
          else if (t.operand === 'unread') hit = !msg.flags.includes('read');
          else hit = undefined;
          break;
        default:
          hit = undefined;
      }
      if (hit === undefined) known = false;
      else if (hit === !!t.negated) return false;
    }
    return known ? true : undefined;
  }

  /** The URL hash of the view, as the reference's web app writes it. */
  toHash(names: { stream(id: number): string; user(id: number): string }): string {
    if (this.terms.length === 0) return this.near ? `#narrow/near/${this.near}` : '#feed';
    const parts: string[] = ['#narrow'];
    for (const t of this.terms) {
      const op = (t.negated ? '-' : '') + t.operator;
      let operand: string;
      if (t.operator === 'channel') operand = `${t.operand}-${encodeHash(slug(names.stream(t.operand as number)))}`;
      else if (t.operator === 'dm') {
        const ids = t.operand as number[];
        operand = ids.length === 0 ? 'me' : `${ids.join(',')}-${ids.length === 1 ? encodeHash(slug(names.user(ids[0]))) : 'group'}`;
      } else if (t.operator === 'sender') operand = `${t.operand}-${encodeHash(slug(names.user(t.operand as number)))}`;
      else operand = encodeHash(String(t.operand));
      parts.push(op, operand);
    }
    if (this.near) parts.push('near', String(this.near));
    return parts.join('/');
  }

  /** A view from a URL hash; null for hashes that name no message view. */
  static fromHash(hash: string, selfId: number): Narrow | null {
    if (hash === '' || hash === '#' || hash === '#feed' || hash === '#all_messages') return Narrow.all;
    if (!hash.startsWith('#narrow/')) return null;
    const parts = hash.slice('#narrow/'.length).split('/');
    const terms: Term[] = [];
    let near: number | null = null;
    for (let i = 0; i + 1 < parts.length; i += 2) {
      let op = decodeHash(parts[i]);
      const raw = decodeHash(parts[i + 1]);
      const negated = op.startsWith('-');
      if (negated) op = op.slice(1);
      if (op === 'stream') op = 'channel';
      if (op === 'pm-with') op = 'dm';
      if (op === 'near' || op === 'with') {
        near = Number(raw) || null;
        continue;
      }
      let operand: Term['operand'] = raw;
      if (op === 'channel' || op === 'sender') {
        const id = parseInt(raw, 10);
        if (!Number.isFinite(id)) return null;
        operand = id;
      } else if (op === 'dm') {
        operand = raw === 'me' ? [] : raw.split('-')[0].split(',').map(Number).filter((id) => Number.isFinite(id) && id !== selfId).sort((a, b) => a - b);
      }
      terms.push(negated ? { operator: op, operand, negated } : { operator: op, operand });
    }
    return new Narrow(terms, near);
  }
}

/** The conversation a message is in, as the unread model and the sidebar key it. */
export function conversationKey(msg: Pick<Message, 'type' | 'stream_id' | 'subject' | 'display_recipient'>, selfId: number): string {
  if (msg.type === 'stream') return `s:${msg.stream_id}:${msg.subject.toLowerCase()}`;
  const ids = Array.isArray(msg.display_recipient) ? msg.display_recipient.map((r) => r.id).filter((id) => id !== selfId) : [];
  return `d:${ids.sort((a, b) => a - b).join(',')}`;
}
