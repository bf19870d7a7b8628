import { dmKey, FLAG, type EditRecord, type MessageRecord, type ReactionRecord, type SubmessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import { writeBits } from '../../model/read-state.js';
import { insertMessage } from '../../store/messages.js';
import type { StoreView, WriteBatch } from '../../store/shard-store.js';
import { setMessageLink } from '../../store/uploads.js';
import type { ReadStateBuilder } from '../readstate.js';
import type { Rewriter } from './links.js';
import { rows, userId, type Ids } from './org.js';
import type { Plan } from './plan.js';
import type { MessageFile, Row } from './read.js';
import { RECIPIENT } from './tables.js';

/**
 * Messages of the reference's export as Stoa's MessageRecords, written with the same store
 * functions the live send path uses (insertMessage: the message, its channel/topic/DM/sender
 * indexes and its search words; writeBits: the sparse flags and their indexes; the upload
 * links), so that an imported message is stored exactly as one sent here.
 */

/** The UserMessage flags a user keeps in Stoa's sparse rows (read is the watermark's). */
const KEPT = FLAG.starred | FLAG.collapsed | FLAG.mentioned | FLAG.stream_wildcard_mentioned | FLAG.topic_wildcard_mentioned | FLAG.group_mentioned | FLAG.has_alert_word;

export interface MessageContext {
  plan: Plan;
  ids: Ids;
  realm: RealmState;
  rewrite: Rewriter;
  clients: Map<number, string>;
  reactions: Map<number, ReactionRecord[]>;
  submessages: Map<number, SubmessageRecord[]>;
  /** Old message id -> new attachment ids it links. */
  links: Map<number, number[]>;
  /** Markdown for messages the export gives without HTML (other tools' exports). */
  render: (content: string, senderId: number) => { html: string; mentions: MessageRecord['mentions'] };
  readState: ReadStateBuilder;
}

export function indexTables(ctx: Pick<MessageContext, 'plan' | 'ids'>): Pick<MessageContext, 'reactions' | 'submessages' | 'clients'> {
  const { plan, ids } = ctx;
  const reactions = new Map<number, ReactionRecord[]>();
  const seen = new Set<string>();
  for (const r of rows(plan, 'zerver_reaction')) {
    const type = r.reaction_type as ReactionRecord['reactionType'];
    const code = type === 'realm_emoji' && ids.emoji.has(Number(r.emoji_code)) ? String(ids.emoji.get(Number(r.emoji_code))) : (r.emoji_code as string);
    const reaction: ReactionRecord = { emojiName: r.emoji_name as string, emojiCode: code, reactionType: type, userId: userId(plan, ids, r.user_profile as number) };
    const key = `${r.message as number}:${reaction.userId}:${type}:${code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const list = reactions.get(r.message as number) ?? [];
    list.push(reaction);
    reactions.set(r.message as number, list);
  }
  const submessages = new Map<number, SubmessageRecord[]>();
  for (const s of [...rows(plan, 'zerver_submessage')].sort((a, b) => (a.id as number) - (b.id as number))) {
    const list = submessages.get(s.message as number) ?? [];
    list.push({ id: ids.submessage.get(s.id as number), senderId: userId(plan, ids, s.sender as number), msgType: s.msg_type as string, content: s.content as string });
    submessages.set(s.message as number, list);
  }
  const clients = new Map(rows(plan, 'zerver_client').map((c) => [c.id as number, c.name as string]));
  return { reactions, submessages, clients };
}

/** The reference's edit_history (newest first, JSON text) as Stoa's edits (oldest first). */
function edits(ctx: MessageContext, json: unknown): { edits: EditRecord[]; lastMovedTs: number | null } {
  if (typeof json !== 'string' || json === '') return { edits: [], lastMovedTs: null };
  const { plan, ids, rewrite } = ctx;
  const out: EditRecord[] = [];
  let lastMovedTs: number | null = null;
  for (const e of (JSON.parse(json) as Row[]).reverse()) {
    const edit: EditRecord = { userId: typeof e.user_id === 'number' ? userId(plan, ids, e.user_id) : null, timestamp: Math.floor(e.timestamp as number) };
    if (typeof e.prev_content === 'string') edit.prevContent = rewrite.content(e.prev_content);
    if (typeof e.prev_rendered_content === 'string') edit.prevRendered = rewrite.rendered(e.prev_rendered_content);
    if (typeof e.prev_stream === 'number') edit.prevStream = ids.stream.opt(e.prev_stream) ?? undefined;
    if (typeof e.stream === 'number') edit.stream = ids.stream.opt(e.stream) ?? undefined;
    const prevTopic = e.prev_topic ?? e.prev_subject;
    const topic = e.topic ?? e.subject;
    if (typeof prevTopic === 'string') edit.prevTopic = prevTopic;
    if (typeof topic === 'string') edit.topic = topic;
    if (edit.prevStream !== undefined || edit.prevTopic !== undefined) lastMovedTs = Math.max(lastMovedTs ?? 0, edit.timestamp);
    out.push(edit);
  }
  return { edits: out, lastMovedTs };
}

/** Who a rendered message mentions, as the renderer would have recorded it. */
export function mentionsOf(html: string): MessageRecord['mentions'] {
  const users = new Set<number>();
  const groups = new Set<number>();
  let stream = false;
  let topic = false;
  if (html.includes('mention')) {
    for (const m of html.matchAll(/<span class="(user-mention|user-group-mention|topic-mention)( silent)?"(?: data-user-id="(\d+|\*)")?(?: data-user-group-id="(\d+)")?/g)) {
      if (m[2]) continue;
      if (m[1] === 'topic-mention') topic = true;
      else if (m[3] === '*') stream = true;
      else if (m[3]) users.add(Number(m[3]));
      else if (m[4]) groups.add(Number(m[4]));
    }
  }
  return { users: [...users], groups: [...groups], stream, topic };
}

export function toRecord(ctx: MessageContext, m: Row): MessageRecord {
  const { plan, ids, rewrite, realm } = ctx;
  const recipient = plan.recipients.get(m.recipient as number)!;
  const senderId = userId(plan, ids, m.sender as number);
  const isStream = recipient.type === RECIPIENT.stream;
  let dm: number[] | null = null;
  if (!isStream) {
    const members = recipient.type === RECIPIENT.huddle ? plan.huddleMembers.get(m.recipient as number)! : [recipient.typeId];
    dm = dmKey([senderId, ...members.map((id) => userId(plan, ids, id))]).split(',').map(Number);
  }
  const content = rewrite.content(m.content as string);
  let rendered: string;
  let mentions: MessageRecord['mentions'];
  if (typeof m.rendered_content === 'string') {
    rendered = rewrite.rendered(m.rendered_content);
    mentions = mentionsOf(rendered);
  } else ({ html: rendered, mentions } = ctx.render(content, senderId));
  const { edits: history, lastMovedTs } = edits(ctx, m.edit_history);
  const subs = ctx.submessages.get(m.id as number);
  const msg: MessageRecord = {
    id: ids.message.get(m.id as number),
    realmId: realm.id,
    senderId,
    kind: isStream ? 'stream' : 'direct',
    streamId: isStream ? ids.stream.get(recipient.typeId) : null,
    topic: isStream ? (m.subject as string) : '',
    dm,
    content,
    rendered,
    client: ctx.clients.get(m.sending_client as number) ?? 'Internal',
    timestamp: Math.floor(m.date_sent as number),
    isMe: /^\/me /.test(content) && !content.includes('\n'),
    hasLink: m.has_link === true,
    hasImage: m.has_image === true,
    hasAttachment: m.has_attachment === true,
    mentions,
    reactions: ctx.reactions.get(m.id as number) ?? [],
    edits: history,
    lastEditTs: typeof m.last_edit_time === 'number' ? Math.floor(m.last_edit_time) : null,
    lastMovedTs,
  };
  if (subs) msg.submessageCount = subs.length;
  return msg;
}

/**
 * Writes one message file on `batch`, and adds its UserMessage rows to the read state. With
 * `write` false (a resumed import replaying what was committed before) only the read state is
 * rebuilt.
 */
export function importMessageFile(shard: StoreView, batch: WriteBatch | null, ctx: MessageContext, file: MessageFile): number {
  const { plan, ids, realm, readState } = ctx;
  const records = new Map<number, MessageRecord>();
  for (const m of file.zerver_message) {
    const recipient = plan.recipients.get(m.recipient as number)!;
    const id = ids.message.get(m.id as number);
    readState.message(id, recipient.type === RECIPIENT.stream ? ids.stream.get(recipient.typeId) : null);
    if (!batch) continue;
    const msg = toRecord(ctx, m);
    records.set(m.id as number, msg);
    insertMessage(shard, batch, msg);
    ctx.submessages.get(m.id as number)?.forEach((sub, n) => batch.put(shard.store.submessages, [msg.id, n], sub));
    for (const attachmentId of ctx.links.get(m.id as number) ?? []) setMessageLink(shard, batch, realm.id, msg.id, attachmentId, true);
    if (msg.dm && msg.dm.length > 2) {
      const key = `dmgroup:${realm.id}:${dmKey(msg.dm)}`;
      if (shard.read(shard.store.meta, key) === undefined) batch.put(shard.store.meta, key, ids.base.dmgroup + dmGroupRank(ctx, msg.dm));
    }
  }
  for (const um of file.zerver_usermessage) {
    const flags = um.flags_mask as number;
    const user = userId(plan, ids, um.user_profile as number);
    const id = ids.message.get(um.message as number);
    const historical = (flags & FLAG.historical) !== 0;
    if (!historical) readState.row(user, id, (flags & FLAG.read) !== 0);
    if (!batch) continue;
    let bits = flags & KEPT;
    if (historical && bits !== 0) bits |= FLAG.historical;
    if (bits !== 0) writeBits(shard, batch, realm, user, id, 0, bits);
  }
  return file.zerver_message.length;
}

const dmGroups = new WeakMap<MessageContext, Map<string, number>>();

/** A group DM's number among the export's: ids for `dmgroup:` keys, stable across a resume. */
function dmGroupRank(ctx: MessageContext, participants: number[]): number {
  let ranks = dmGroups.get(ctx);
  if (!ranks) {
    ranks = new Map();
    const keys = new Set<string>();
    for (const [recipientId, members] of ctx.plan.huddleMembers) {
      void recipientId;
      keys.add(dmKey(members.map((id) => userId(ctx.plan, ctx.ids, id))));
    }
    [...keys].sort().forEach((k, i) => ranks!.set(k, i + 1));
    dmGroups.set(ctx, ranks);
  }
  return ranks.get(dmKey(participants)) ?? ranks.size + 1;
}
