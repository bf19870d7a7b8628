import { createHash } from 'node:crypto';
import { directTo, type DraftRecord, type NavigationViewRecord, type SavedSnippetRecord, type ScheduledMessageRecord } from '../../model/personal.js';
import type { ChannelFolderRecord } from '../../model/channel-folders.js';
import type { UserTopicRecord, VisibilityPolicy } from '../../model/user-topics.js';
import type { ProfileFieldRecord, RealmEmojiRecord, UserRecord, UserStatusRecord } from '../../model/types.js';
import type { Plan } from './plan.js';
import { folderRank, rows, userId, type Ids } from './org.js';
import { RECIPIENT } from './tables.js';
import type { Rewriter } from './links.js';

/**
 * People's own data in the reference's export, as Stoa's records: topic visibility, mutes,
 * statuses, alert words, custom profile fields and their values, custom emoji, channel folders,
 * saved snippets, navigation views, drafts and scheduled messages, bot storage.
 */
export interface PeopleData {
  userTopics: UserTopicRecord[];
  mutes: [number, number, number][];
  statuses: [number, UserStatusRecord][];
  alertWords: [number, string[]][];
  profileFields: ProfileFieldRecord[];
  emoji: RealmEmojiRecord[];
  folders: ChannelFolderRecord[];
  snippets: [number, SavedSnippetRecord][];
  navigationViews: [number, NavigationViewRecord][];
  drafts: [number, DraftRecord][];
  scheduled: ScheduledMessageRecord[];
  botStorage: [number, string, string][];
}

const seconds = (value: unknown, fallback: number): number => (typeof value === 'number' ? Math.floor(value) : fallback);

/** Where a recipient of a draft or scheduled message leads: a channel, or the DM's participants. */
function target(plan: Plan, ids: Ids, recipientId: number, senderId: number): { type: 'stream' | 'private'; streamId: number | null; to: number[] } {
  const recipient = plan.recipients.get(recipientId)!;
  if (recipient.type === RECIPIENT.stream) return { type: 'stream', streamId: ids.stream.get(recipient.typeId), to: [] };
  const members = recipient.type === RECIPIENT.huddle ? (plan.huddleMembers.get(recipientId) ?? []) : [recipient.typeId];
  return { type: 'private', streamId: null, to: directTo(senderId, members.map((m) => userId(plan, ids, m))) };
}

export function buildPeople(plan: Plan, ids: Ids, realmId: number, users: UserRecord[], now: number, rewrite: Rewriter, render: (text: string) => string): PeopleData {
  const uid = (old: unknown) => userId(plan, ids, old as number);
  const userTopics: UserTopicRecord[] = rows(plan, 'zerver_usertopic')
    .filter((t) => [1, 2, 3].includes(t.visibility_policy as number))
    .map((t) => ({ userId: uid(t.user_profile), streamId: ids.stream.get(t.stream as number), topic: t.topic_name as string, policy: t.visibility_policy as VisibilityPolicy, lastUpdated: seconds(t.last_updated, now) }));
  const mutes = rows(plan, 'zerver_muteduser').map((m): [number, number, number] => [uid(m.user_profile), uid(m.muted_user), seconds(m.date_muted, now)]);
  const statuses = rows(plan, 'zerver_userstatus').map((s): [number, UserStatusRecord] => [
    uid(s.user_profile),
    {
      statusText: String(s.status_text ?? ''),
      emojiName: String(s.emoji_name ?? ''),
      // A custom emoji is named by its id, which is new here.
      emojiCode: s.reaction_type === 'realm_emoji' && ids.emoji.has(Number(s.emoji_code)) ? String(ids.emoji.get(Number(s.emoji_code))) : String(s.emoji_code ?? ''),
      reactionType: String(s.reaction_type ?? 'unicode_emoji'),
      timestamp: seconds(s.timestamp, now),
    },
  ]);
  const words = new Map<number, string[]>();
  for (const w of rows(plan, 'zerver_alertword')) words.set(uid(w.user_profile), [...(words.get(uid(w.user_profile)) ?? []), w.word as string]);

  const fieldIds = new Map(rows(plan, 'zerver_customprofilefield').map((f, i) => [f.id as number, ids.base.profileField + i + 1]));
  const profileFields = rows(plan, 'zerver_customprofilefield').map((f, i): ProfileFieldRecord => ({
    id: fieldIds.get(f.id as number)!,
    name: f.name as string,
    hint: String(f.hint ?? ''),
    type: f.field_type as number,
    fieldData: String(f.field_data ?? ''),
    order: (f.order as number | undefined) ?? i,
    displayInProfileSummary: f.display_in_profile_summary === true,
    required: f.required === true,
    editableByUser: f.editable_by_user !== false,
  }));
  const byId = new Map(users.map((u) => [u.id, u]));
  const fieldTypes = new Map(profileFields.map((f) => [f.id, f.type]));
  for (const v of rows(plan, 'zerver_customprofilefieldvalue')) {
    const user = byId.get(uid(v.user_profile));
    const field = fieldIds.get(v.field as number)!;
    if (!user) continue;
    let value = v.value as string;
    // A users field holds user ids, which are new here.
    if (fieldTypes.get(field) === 6) value = JSON.stringify((JSON.parse(value) as number[]).map((id) => uid(id)));
    const entry: { value: string; rendered?: string } = { value };
    if (fieldTypes.get(field) === 1 || fieldTypes.get(field) === 2) entry.rendered = typeof v.rendered_value === 'string' ? v.rendered_value : render(value);
    user.profileData = { ...(user.profileData ?? {}), [field]: entry };
  }

  const emoji = rows(plan, 'zerver_realmemoji').map((e): RealmEmojiRecord => {
    const fileName = String(e.file_name ?? `${e.id as number}.png`);
    return {
      id: ids.emoji.get(e.id as number),
      realmId,
      name: e.name as string,
      authorId: typeof e.author === 'number' ? uid(e.author) : null,
      // Stoa names an emoji's file itself; the old name only finds the file in the export.
      fileName: `${createHash('sha256').update(`${realmId}:${e.id as number}:${fileName}`).digest('hex').slice(0, 8)}${extension(fileName)}`,
      contentType: contentType(fileName),
      isAnimated: e.is_animated === true,
      stillFileName: null,
      deactivated: e.deactivated as boolean,
      dateCreated: now * 1000,
    };
  });

  const folders = rows(plan, 'zerver_channelfolder').map((f, i): ChannelFolderRecord => {
    const id = ids.base.channelFolder + folderRank(plan, f.id as number);
    const description = String(f.description ?? '');
    return { id, realmId, name: f.name as string, description, renderedDescription: typeof f.rendered_description === 'string' ? f.rendered_description : render(description), order: (f.order as number | undefined) ?? i, dateCreated: seconds(f.date_created, now), creatorId: typeof f.creator === 'number' ? uid(f.creator) : null, isArchived: f.is_archived === true };
  });
  const snippets = rows(plan, 'zerver_savedsnippet').map((s, i): [number, SavedSnippetRecord] => [uid(s.user_profile), { id: ids.base.snippet + i + 1, title: s.title as string, content: s.content as string, dateCreated: seconds(s.date_created, now) }]);
  const navigationViews = rows(plan, 'zerver_navigationview').map((v, i): [number, NavigationViewRecord] => [uid(v.user), { id: ids.base.navigationView + i + 1, fragment: rewrite.fragment(v.fragment as string), isPinned: v.is_pinned as boolean, name: (v.name as string | null) ?? null }]);
  const drafts = rows(plan, 'zerver_draft').map((d, i): [number, DraftRecord] => {
    const owner = uid(d.user_profile);
    const to = typeof d.recipient === 'number' ? target(plan, ids, d.recipient, owner) : null;
    return [owner, { id: ids.base.draft + i + 1, type: to ? to.type : '', to: to ? (to.type === 'stream' ? [to.streamId!] : to.to) : [], topic: to?.type === 'stream' ? String(d.topic ?? '') : '', content: rewrite.content(d.content as string), timestamp: seconds(d.last_edit_time, now) }];
  });
  const clients = new Map(rows(plan, 'zerver_client').map((c) => [c.id as number, c.name as string]));
  const scheduled = rows(plan, 'zerver_scheduledmessage').map((s, i): ScheduledMessageRecord => {
    const senderId = uid(s.sender);
    const to = target(plan, ids, s.recipient as number, senderId);
    const delivered = typeof s.delivered_message === 'number' ? ids.message.opt(s.delivered_message) : null;
    const record: ScheduledMessageRecord = {
      id: ids.base.scheduled + i + 1,
      realmId,
      senderId,
      kind: s.delivery_type === 2 ? 'remind' : 'send_later',
      type: to.type,
      streamId: to.streamId,
      topic: to.type === 'stream' ? (s.subject as string) : '',
      to: to.to,
      content: rewrite.content(s.content as string),
      rendered: rewrite.rendered(String(s.rendered_content ?? '')) || render(rewrite.content(s.content as string)),
      client: clients.get(s.sending_client as number) ?? 'Internal',
      deliverAt: seconds(s.scheduled_timestamp, now),
      readBySender: s.read_by_sender === true,
      failed: s.failed === true,
      failureMessage: (s.failure_message as string | null | undefined) ?? null,
      deliveredMessageId: s.delivered ? (delivered ?? 0) : null,
    };
    if (record.kind === 'remind' && typeof s.reminder_target_message === 'number') {
      record.reminderTargetMessageId = ids.message.opt(s.reminder_target_message) ?? 0;
      record.reminderNote = (s.reminder_note as string | null | undefined) ?? null;
    }
    return record;
  });
  const botStorage = rows(plan, 'zerver_botstoragedata').map((b): [number, string, string] => [uid(b.bot_profile), b.key as string, b.value as string]);
  return { userTopics, mutes, statuses, alertWords: [...words], profileFields, emoji, folders, snippets, navigationViews, drafts, scheduled, botStorage };
}

export function extension(fileName: string): string {
  const m = /\.(png|gif|jpe?g|webp|avif)$/i.exec(fileName);
  return m ? `.${m[1].toLowerCase()}` : '.png';
}

export function contentType(fileName: string): string {
  const ext = extension(fileName);
  return { '.png': 'image/png', '.gif': 'image/gif', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.avif': 'image/avif' }[ext] ?? 'image/png';
}
