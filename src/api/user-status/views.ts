import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord, UserStatusRecord } from '../../model/types.js';
import { accessFilter } from '../../model/user-access.js';
import type { Shard } from '../../shard/shard.js';
import { userSetting } from '../../model/user-settings.js';

export type StatusView = {
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
};

/**
 * A status as the reference's format_user_status gives it: only what is set, and `away`, the
 * legacy face of the presence_enabled setting, for users with a status row.
 */
export function statusView(user: UserRecord, status: UserStatusRecord): StatusView {
  const view: StatusView = {};
  if (userSetting(user, 'presence_enabled') === false) view.away = true;
  if (status.statusText) view.status_text = status.statusText;
  if (status.emojiName) {
    view.emoji_name = status.emojiName;
    view.emoji_code = status.emojiCode;
    view.reaction_type = status.reactionType;
  }
  return view;
}

/**
 * `user_status` of /register: active users' statuses, keyed by user id, as the reference's
 * get_all_users_status_dict lists them: without the rows that say nothing (cleared, and the user
 * visible), and for a restricted guest only the users they can access.
 */
export function userStatusSection(shard: Shard, realm: RealmState, viewer: UserRecord): Record<string, StatusView> {
  const out: Record<string, StatusView> = {};
  const accessible = accessFilter(shard, realm, viewer);
  for (const [userId, status] of realm.people.statuses) {
    const user = realm.users.get(userId);
    if (!user?.isActive || !accessible(user)) continue;
    const view = statusView(user, status);
    if (Object.keys(view).length > 0) out[String(userId)] = view;
  }
  return out;
}
