import type { RealmState } from '../../model/realm-state.js';
import { userHasRealmPermission } from '../../model/realm-settings.js';
import { ROLE, type UserRecord } from '../../model/types.js';
import { isAdmin } from '../streams/access.js';
import { avatarUrl, inaccessibleUserView, mediumAvatarUrl, userView } from '../users/views.js';
import { accessFilter, isRestricted } from '../../model/user-access.js';
import { RawJson } from '../../lib/raw-json.js';
import type { Shard } from '../../shard/shard.js';

/** The people sections of /register: realm_user, realm_bot and realm_user_groups. */


/**
 * realm_users and realm_non_active_users hold every user, bots included, split on is_active and
 * without that field (the lists say it), in id order; then the user's own fields. System bots
 * (the Notification Bot) are in cross_realm_bots instead, as the reference's get_cross_realm_dicts
 * gives them: by name, with is_system_bot, no owner, and always with their avatar URL.
 *
 * A restricted guest (model/user-access.ts) gets only the users they can access when the client
 * declared user_list_incomplete; otherwise each other user is an "Unknown user" placeholder,
 * which, like the reference's, claims to be active and so sits in realm_users.
 *
 * Everyone else gets the same three lists, so those are served as JSON cached on the realm until
 * a user record changes (RealmState.cachedUsersJson).
 */
export function realmUserSection(shard: Shard, realm: RealmState, self: UserRecord, clientGravatar: boolean, userListIncomplete: boolean): Record<string, unknown> {
  let people: Record<string, unknown>;
  if (isRestricted(realm, self)) {
    people = peopleLists(realm, accessFilter(shard, realm, self), clientGravatar, userListIncomplete);
  } else {
    let built: PeopleLists | undefined;
    const lists = () => (built ??= peopleLists(realm, () => true, clientGravatar, false));
    const cached = (name: keyof PeopleLists) => RawJson.of(realm.cachedUsersJson(`${name}:${clientGravatar}`, () => lists()[name]));
    people = { realm_users: cached('realm_users'), realm_non_active_users: cached('realm_non_active_users'), cross_realm_bots: cached('cross_realm_bots') };
  }
  const can = (setting: string) => userHasRealmPermission(realm, self, setting);
  const canCreatePublic = can('can_create_public_channel_group');
  const canCreatePrivate = can('can_create_private_channel_group');
  const canCreateWebPublic = can('can_create_web_public_channel_group');
  return {
    ...people,
    avatar_source: self.avatarSource,
    // The user's own avatar URLs are always computed, whatever client_gravatar says.
    avatar_url_medium: mediumAvatarUrl(self),
    avatar_url: avatarUrl(self, false),
    can_create_private_streams: canCreatePrivate,
    can_create_public_streams: canCreatePublic,
    can_create_streams: canCreatePrivate || canCreatePublic || canCreateWebPublic,
    can_create_web_public_streams: canCreateWebPublic,
    can_subscribe_other_users: can('can_add_subscribers_group'),
    can_invite_others_to_realm: can('can_invite_users_group'),
    is_admin: isAdmin(self),
    is_owner: self.role === ROLE.owner,
    is_moderator: self.role === ROLE.moderator,
    is_guest: self.role === ROLE.guest,
    user_id: self.id,
    email: self.email,
    delivery_email: self.email,
    full_name: self.fullName,
  };
}

type PeopleLists = {
  realm_users: Record<string, unknown>[];
  realm_non_active_users: Record<string, unknown>[];
  cross_realm_bots: Record<string, unknown>[];
};

function peopleLists(realm: RealmState, accessible: (user: UserRecord) => boolean, clientGravatar: boolean, userListIncomplete: boolean): PeopleLists {
  const active: Record<string, unknown>[] = [];
  const inactive: Record<string, unknown>[] = [];
  const systemBots: Record<string, unknown>[] = [];
  for (const user of [...realm.users.values()].sort((a, b) => a.id - b.id)) {
    if (user.isSystemBot) {
      systemBots.push({ ...userView(user, { clientGravatar: false }), is_system_bot: true, bot_owner_id: null });
      continue;
    }
    if (!accessible(user)) {
      if (userListIncomplete) continue;
      const { is_active: _placeholder, ...view } = inaccessibleUserView(realm.url, user.id);
      active.push(view);
      continue;
    }
    const { is_active: _implied, ...view } = userView(user, { clientGravatar, includeProfileData: true });
    (user.isActive ? active : inactive).push(view);
  }
  systemBots.sort((a, b) => String(a.full_name).localeCompare(String(b.full_name)));
  return { realm_users: active, realm_non_active_users: inactive, cross_realm_bots: systemBots };
}

/** realm_bots: see bots/views.ts. */
export { realmBots } from '../users/bot-views.js';

export { realmUserGroups } from '../user_groups/views.js';
