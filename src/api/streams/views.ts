import type { RealmState } from '../../model/realm-state.js';
import type { GroupSetting, StreamRecord, UserRecord } from '../../model/types.js';
import { renderMessage } from '../messages/render.js';
import { usesChannelFolders } from '../../model/channel-folders.js';

/** A channel description as HTML, rendered as message content is, as the reference does. */
export function renderDescription(realm: RealmState, author: UserRecord | null, text: string): string {
  return text === '' ? '' : renderMessage(text, { realm, sender: author }).html;
}

/**
 * A group setting as the API shows it: the group id, or the anonymous group's members (active
 * users only, ascending, as the reference lists them) and subgroups.
 */
export function groupSettingView(realm: RealmState, setting: GroupSetting): number | { direct_members: number[]; direct_subgroups: number[] } {
  if (typeof setting === 'number') return setting;
  return {
    direct_members: setting.direct_members.filter((id) => realm.users.get(id)?.isActive).sort((a, b) => a - b),
    direct_subgroups: [...setting.direct_subgroups].sort((a, b) => a - b),
  };
}

/** The legacy stream_post_policy the reference derives from can_send_message_group. */
const POST_POLICY_BY_GROUP: Record<string, number> = {
  'role:everyone': 1,
  'role:administrators': 2,
  'role:fullmembers': 3,
  'role:moderators': 4,
};

export function streamPostPolicy(realm: RealmState, stream: StreamRecord): number {
  const setting = stream.groups.can_send_message_group;
  if (typeof setting !== 'number') return 1;
  const group = realm.groups.get(setting);
  return (group?.isSystemGroup && POST_POLICY_BY_GROUP[group.name]) || 1;
}

/** The channel permission settings a channel object carries, in the reference's order. */
export const CHANNEL_GROUP_SETTINGS = [
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_remove_subscribers_group',
  'can_send_message_group',
  'can_subscribe_group',
] as const;

/**
 * A channel as GET /streams and stream events show it (the reference's BasicChannel). Traffic
 * statistics are not computed here: stream_weekly_traffic is null, as the reference sends it for
 * a channel without recent history.
 */
export function streamView(realm: RealmState, stream: StreamRecord): Record<string, unknown> {
  const postPolicy = streamPostPolicy(realm, stream);
  const view: Record<string, unknown> = {
    stream_id: stream.id,
    name: stream.name,
    is_archived: stream.isArchived,
    description: stream.description,
    rendered_description: stream.renderedDescription,
    date_created: stream.dateCreated,
    creator_id: stream.creatorId,
    invite_only: stream.inviteOnly,
    is_web_public: stream.isWebPublic,
    stream_post_policy: postPolicy,
    message_retention_days: stream.messageRetentionDays,
    history_public_to_subscribers: stream.historyPublicToSubscribers,
    first_message_id: stream.firstMessageId ?? null,
    is_recently_active: true,
    is_announcement_only: postPolicy === 2,
    stream_weekly_traffic: null,
  };
  // Feature level 389: the channel's folder, or null; shown once the realm has folders, so that
  // a realm without them looks as a 10.2 server's does (see events/register-state.ts `later`).
  if (usesChannelFolders(realm)) view.folder_id = stream.folderId ?? null;
  for (const name of CHANNEL_GROUP_SETTINGS) {
    const setting = stream.groups[name];
    if (setting !== undefined) view[name] = groupSettingView(realm, setting);
  }
  return view;
}
