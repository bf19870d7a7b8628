import { call } from '../api.js';
import type { Message, ServerEvent } from '../types.js';
import type { Narrow } from './narrow.js';

/**
 * The messages of the open view: fetched by anchor (GET /messages), kept in id order, changed
 * by the store's events (Store.handleEvent hands them here) and never patched by fetching.
 * After a re-register (the server lost the queue) it is fetched again from the same anchor.
 */
export class MessageList {
  messages: Message[] = [];
  foundOldest = false;
  foundNewest = false;
  loading = false;
  /** The message the view opened at: the first unread, or the linked one. */
  anchor: number | null = null;
  error: string | null = null;
  private readonly byId = new Map<number, Message>();

  constructor(
    readonly narrow: Narrow,
    private readonly selfId: number,
    /** The store's notification; a re-register points it at the new store. */
    public changed: () => void,
  ) {}

  private query(anchor: number | string, before: number, after: number, includeAnchor = true) {
    return call<{ messages: Message[]; found_oldest: boolean; found_newest: boolean; anchor: number }>('GET', '/messages', {
      anchor: String(anchor),
      num_before: before,
      num_after: after,
      include_anchor: includeAnchor,
      narrow: this.narrow.apiTerms(),
      apply_markdown: true,
      client_gravatar: false,
    });
  }

  private merge(messages: Message[]): void {
    for (const m of messages) {
      const had = this.byId.get(m.id);
      if (had) Object.assign(had, m);
      else {
        this.byId.set(m.id, m);
        this.messages.push(m);
      }
    }
    this.messages.sort((a, b) => a.id - b.id);
  }

  /** The first screen: around the first unread (or the linked message). */
  async load(): Promise<void> {
    this.loading = true;
    this.changed();
    try {
      const res = await this.query(this.narrow.near ?? 'first_unread', 40, 60);
      this.messages = [];
      this.byId.clear();
      this.merge(res.messages);
      this.foundOldest = res.found_oldest;
      this.foundNewest = res.found_newest;
      this.anchor = res.messages.some((m) => m.id === res.anchor) ? res.anchor : null;
      this.error = null;
    } catch (err) {
      this.error = (err as Error).message;
    } finally {
      this.loading = false;
      this.changed();
    }
  }

  /** Older messages, before the oldest shown (scrolling up). */
  older(): Promise<void> {
    return this.extend('older');
  }

  /** Newer messages, after the newest shown (a view opened far back). */
  newer(): Promise<void> {
    return this.extend('newer');
  }

  /** One more page, by the anchor at that end of what is shown. */
  private async extend(way: 'older' | 'newer'): Promise<void> {
    const done = way === 'older' ? this.foundOldest : this.foundNewest;
    if (this.loading || done || this.messages.length === 0) return;
    this.loading = true;
    try {
      const anchor = way === 'older' ? this.messages[0].id : this.messages[this.messages.length - 1].id;
      const res = await this.query(anchor, way === 'older' ? 50 : 0, way === 'newer' ? 100 : 0, false);
      this.merge(res.messages);
      if (way === 'older') this.foundOldest = res.found_oldest;
      else this.foundNewest = res.found_newest;
    } finally {
      this.loading = false;
      this.changed();
    }
  }

  /**
   * After a re-register: what the view shows, fetched again from its oldest message (so edits,
   * deletions and new messages missed while the queue was lost all show), keeping its place.
   */
  async refetch(): Promise<void> {
    if (this.messages.length === 0) return this.load();
    const res = await this.query(this.messages[0].id, 0, Math.min(1000, this.messages.length + 200));
    const fresh = new Set(res.messages.map((m) => m.id));
    this.messages = this.messages.filter((m) => fresh.has(m.id) || m.id < res.messages[0]?.id);
    for (const id of [...this.byId.keys()]) if (!this.messages.some((m) => m.id === id)) this.byId.delete(id);
    this.merge(res.messages);
    this.foundNewest = res.found_newest;
    this.changed();
  }

  get(id: number): Message | undefined {
    return this.byId.get(id);
  }

  /** A new message: shown when the view reaches the newest and it belongs (a search cannot tell: not shown). */
  add(msg: Message): boolean {
    if (!this.foundNewest || this.byId.has(msg.id)) return false;
    if (this.narrow.contains(msg, this.selfId) !== true) return false;
    this.merge([msg]);
    return true;
  }

  remove(ids: number[]): void {
    const gone = new Set(ids.filter((id) => this.byId.delete(id)));
    if (gone.size) this.messages = this.messages.filter((m) => !gone.has(m.id));
  }

  /** update_message: new content, and for a move, messages that now belong elsewhere leave. */
  update(ev: ServerEvent): void {
    const ids: number[] = ev.message_ids ?? [ev.message_id];
    for (const id of ids) {
      const m = this.byId.get(id);
      if (!m) continue;
      if (id === ev.message_id && ev.rendered_content !== undefined) {
        m.content = ev.rendered_content;
        delete m.match_content;
      }
      if (ev.edit_timestamp && ev.rendered_content !== undefined && id === ev.message_id) m.last_edit_timestamp = ev.edit_timestamp;
      if (ev.new_stream_id !== undefined) m.stream_id = ev.new_stream_id;
      if (ev.subject !== undefined) {
        m.subject = ev.subject;
        delete m.match_subject;
      }
      if (ev.new_stream_id !== undefined && ev.new_stream_name !== undefined) m.display_recipient = ev.new_stream_name;
    }
    if (ev.new_stream_id !== undefined || ev.subject !== undefined) this.remove(ids.filter((id) => this.byId.has(id) && this.narrow.contains(this.byId.get(id)!, this.selfId) === false));
  }

  flag(ids: number[] | 'all', flag: string, add: boolean): void {
    const set = ids === 'all' ? this.messages : ids.map((id) => this.byId.get(id)).filter((m): m is Message => !!m);
    for (const m of set) {
      const has = m.flags.includes(flag);
      if (add && !has) m.flags = [...m.flags, flag];
      if (!add && has) m.flags = m.flags.filter((f) => f !== flag);
    }
    if (flag === 'starred' && !add && this.narrow.term('is')?.operand === 'starred') this.remove(set.map((m) => m.id));
  }

  /** A widget's vote, option or task (ui/Widgets.tsx folds them). */
  submessage(ev: ServerEvent): void {
    const m = this.byId.get(ev.message_id);
    if (!m || m.submessages?.some((s) => s.id === ev.submessage_id)) return;
    m.submessages = [...(m.submessages ?? []), { id: ev.submessage_id, msg_type: ev.msg_type, content: ev.content, sender_id: ev.sender_id }];
  }

  reaction(ev: ServerEvent): void {
    const m = this.byId.get(ev.message_id);
    if (!m) return;
    const same = (r: Message['reactions'][number]) => r.user_id === ev.user_id && r.emoji_code === ev.emoji_code && r.reaction_type === ev.reaction_type;
    if (ev.op === 'add' && !m.reactions.some(same)) m.reactions = [...m.reactions, { emoji_name: ev.emoji_name, emoji_code: ev.emoji_code, reaction_type: ev.reaction_type, user_id: ev.user_id }];
    if (ev.op === 'remove') m.reactions = m.reactions.filter((r) => !same(r));
  }
}
