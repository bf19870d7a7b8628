import type { UnreadMsgs } from '../types.js';

/**
 * Unread counts as a model (shared/style.md 13): seeded from /register's unread_msgs, kept by
 * message, flag, move and delete events, never recounted by scanning messages. Each unread
 * message id is filed under its conversation; counts are the sizes of those sets.
 *
 *   conv     'd:5,7'                 -> ids   a DM conversation (the other participants)
 *            's:<streamId>:<topic>'   -> ids   a topic (lower-cased, as the server compares)
 *   streams  streamId                 -> ids   every topic of the channel
 *   where    id                       -> its conversation key
 *   topics   's:<streamId>:<topic>'   -> the topic's name as last seen
 */
export class Unreads {
  private readonly where = new Map<number, string>();
  private readonly conv = new Map<string, Set<number>>();
  private readonly streams = new Map<number, Set<number>>();
  readonly mentions = new Set<number>();
  readonly topicNames = new Map<string, string>();

  constructor(seed?: UnreadMsgs) {
    if (!seed) return;
    for (const s of seed.streams) for (const id of s.unread_message_ids) this.addStream(id, s.stream_id, s.topic);
    for (const p of seed.pms) for (const id of p.unread_message_ids) this.add(id, `d:${p.other_user_id}`);
    for (const h of seed.huddles) for (const id of h.unread_message_ids) this.add(id, `d:${h.user_ids_string}`);
    for (const id of seed.mentions) this.mentions.add(id);
  }

  private add(id: number, key: string): void {
    this.remove(id, false);
    this.where.set(id, key);
    let set = this.conv.get(key);
    if (!set) this.conv.set(key, (set = new Set()));
    set.add(id);
  }

  addStream(id: number, streamId: number, topic: string): void {
    const key = `s:${streamId}:${topic.toLowerCase()}`;
    this.topicNames.set(key, topic);
    this.add(id, key);
    let set = this.streams.get(streamId);
    if (!set) this.streams.set(streamId, (set = new Set()));
    set.add(id);
  }

  /** `others`: the DM's participants but oneself, as the unread DM keys name them. */
  addDm(id: number, others: number[]): void {
    this.add(id, `d:${[...others].sort((a, b) => a - b).join(',')}`);
  }

  addMention(id: number): void {
    this.mentions.add(id);
  }

  remove(id: number, mentions = true): void {
    const key = this.where.get(id);
    if (mentions) this.mentions.delete(id);
    if (key === undefined) return;
    this.where.delete(id);
    const set = this.conv.get(key)!;
    set.delete(id);
    if (set.size === 0) this.conv.delete(key);
    if (key.startsWith('s:')) {
      const streamId = Number(key.split(':')[1]);
      const ids = this.streams.get(streamId);
      ids?.delete(id);
      if (ids?.size === 0) this.streams.delete(streamId);
    }
  }

  /** "Mark all as read". */
  clear(): void {
    for (const id of [...this.where.keys()]) this.remove(id);
    this.mentions.clear();
  }

  has(id: number): boolean {
    return this.where.has(id);
  }

  /** Messages moved to another channel or topic (update_message): their unread state follows them. */
  move(ids: number[], streamId: number, topic: string): void {
    for (const id of ids) {
      if (!this.where.has(id)) continue;
      const mentioned = this.mentions.has(id);
      this.remove(id);
      this.addStream(id, streamId, topic);
      if (mentioned) this.mentions.add(id);
    }
  }

  get total(): number {
    return this.where.size;
  }
  stream(streamId: number): number {
    return this.streams.get(streamId)?.size ?? 0;
  }
  topic(streamId: number, topic: string): number {
    return this.conv.get(`s:${streamId}:${topic.toLowerCase()}`)?.size ?? 0;
  }
  dm(key: string): number {
    return this.conv.get(key)?.size ?? 0;
  }
  /** Every DM conversation with unread messages: key -> count. */
  dmConversations(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [key, ids] of this.conv) if (key.startsWith('d:')) out.set(key, ids.size);
    return out;
  }
  /** The topics of a channel with unread messages: name -> count. */
  streamTopics(streamId: number): Map<string, number> {
    const out = new Map<string, number>();
    const prefix = `s:${streamId}:`;
    for (const [key, ids] of this.conv) if (key.startsWith(prefix)) out.set(this.topicNames.get(key) ?? key.slice(prefix.length), ids.size);
    return out;
  }
  /** The unread ids of a conversation key (for "mark as read" of a topic or a DM). */
  idsOf(key: string): number[] {
    return [...(this.conv.get(key) ?? [])];
  }
  /** The lowest unread id in a set of keys' messages, or of all (the first-unread anchor is the server's; this is for display). */
  dmTotal(): number {
    let n = 0;
    for (const [key, ids] of this.conv) if (key.startsWith('d:')) n += ids.size;
    return n;
  }
}
