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

  /** The first screen's fetch (load()), settled. */
  loaded: Promise<void> = Promise.resolve();

  constructor(
    readonly narrow: Narrow,
    private selfId: number,
    /** The store's notification; a re-register points it at the new store. */
    public changed: () => void,
  ) {}

  /** A list fetched before its store existed (store/connection.ts) joins the store. */
  adopt(selfId: number, changed: () => void): void {
    this.selfId = selfId;
    this.changed = changed;
    this.changed();
  }

  /**
   * Messages newer than the newest shown, up to `maxId`: those a fetch made beside /register
   * may have missed, sent after it read and before the new queue existed.
   */
  async catchUp(maxId: number): Promise<void> {
    const newest = this.messages[this.messages.length - 1]?.id ?? 0;
    if (!this.foundNewest || this.error || newest >= maxId) return;
    const res = await this.query(newest, 0, 100, false);
    this.merge(res.messages.filter((m) => !this.byId.has(m.id)));
    this.changed();
  }

  private query(anchor: number | string, before: number, after: number, includeAnchor = true) {
    return call<{ messages: Message[]; found_oldest: boolean; found_newest: boolean; anchor: number }>('GET', '/messages', {
      anchor: String(anchor),
      num_before: before,
      num_after: after,
      include_anchor: includeAnchor,
      narrow: this.narrow.apiTerms(),
      apply_markdown: true,
      client_gravatar: true,
    });
  }

  /**
   * Messages are never changed in place: a change makes a new object, so that a message's view
   * can tell by identity whether it has anything new to draw (ui/MessageView.tsx is memoized).
   */
  private merge(messages: Message[]): void {
    let append = true;
    for (const m of messages) {
      if (this.byId.has(m.id)) {
        this.replace(m);
        continue;
      }
      if (this.messages.length && m.id < this.messages[this.messages.length - 1].id) append = false;
      this.byId.set(m.id, m);
      this.messages.push(m);
    }
    if (!append) this.messages.sort((a, b) => a.id - b.id);
  }

  /** Puts a new version of a message in place of the old one. */
  private replace(m: Message): void {
    this.byId.set(m.id, m);
    let lo = 0;
    let hi = this.messages.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const id = this.messages[mid].id;
      if (id === m.id) {
        this.messages[mid] = m;
        return;
      }
      if (id < m.id) lo = mid + 1;
      else hi = mid - 1;
    }
  }

  private patch(id: number, change: (m: Message) => Partial<Message>): void {
    const m = this.byId.get(id);
    if (m) this.replace({ ...m, ...change(m) });
  }

  /** The first screen: around the first unread (or the linked message). */
  load(): Promise<void> {
    this.loaded = this.fetchFirst();
    return this.loaded;
  }

  private async fetchFirst(): Promise<void> {
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
      const next: Message = { ...m };
      if (id === ev.message_id && ev.rendered_content !== undefined) {
        next.content = ev.rendered_content;
        delete next.match_content;
        if (ev.edit_timestamp) next.last_edit_timestamp = ev.edit_timestamp;
      }
      if (ev.new_stream_id !== undefined) next.stream_id = ev.new_stream_id;
      if (ev.subject !== undefined) {
        next.subject = ev.subject;
        delete next.match_subject;
      }
      if (ev.new_stream_id !== undefined && ev.new_stream_name !== undefined) next.display_recipient = ev.new_stream_name;
      // A move without a content change is in the history too (the reference's "moved" mark).
      if (ev.edit_timestamp && (ev.new_stream_id !== undefined || ev.subject !== undefined)) next.last_moved_timestamp = ev.edit_timestamp;
      this.replace(next);
    }
    if (ev.new_stream_id !== undefined || ev.subject !== undefined) this.remove(ids.filter((id) => this.byId.has(id) && this.narrow.contains(this.byId.get(id)!, this.selfId) === false));
  }

  flag(ids: number[] | 'all', flag: string, add: boolean): void {
    const set = ids === 'all' ? this.messages.map((m) => m.id) : ids.filter((id) => this.byId.has(id));
    for (const id of set) {
      const has = this.byId.get(id)!.flags.includes(flag);
      if (add && !has) this.patch(id, (m) => ({ flags: [...m.flags, flag] }));
      if (!add && has) this.patch(id, (m) => ({ flags: m.flags.filter((f) => f !== flag) }));
    }
    if (flag === 'starred' && !add && this.narrow.term('is')?.operand === 'starred') this.remove(set);
  }

  /** A widget's vote, option or task (ui/Widgets.tsx folds them). */
  submessage(ev: ServerEvent): void {
    const m = this.byId.get(ev.message_id);
    if (!m || m.submessages?.some((s) => s.id === ev.submessage_id)) return;
    this.patch(m.id, () => ({ submessages: [...(m.submessages ?? []), { id: ev.submessage_id, msg_type: ev.msg_type, content: ev.content, sender_id: ev.sender_id }] }));
  }

  reaction(ev: ServerEvent): void {
    const m = this.byId.get(ev.message_id);
    if (!m) return;
    const same = (r: Message['reactions'][number]) => r.user_id === ev.user_id && r.emoji_code === ev.emoji_code && r.reaction_type === ev.reaction_type;
    if (ev.op === 'add' && !m.reactions.some(same)) this.patch(m.id, () => ({ reactions: [...m.reactions, { emoji_name: ev.emoji_name, emoji_code: ev.emoji_code, reaction_type: ev.reaction_type, user_id: ev.user_id }] }));
    if (ev.op === 'remove' && m.reactions.some(same)) this.patch(m.id, () => ({ reactions: m.reactions.filter((r) => !same(r)) }));
  }
}
