import { createHash } from 'node:crypto';
import { ROLE, type UserRecord } from '../../model/types.js';

/**
 * The avatar URL the reference gives a user without an uploaded avatar: Gravatar, keyed by the
 * MD5 of the lower-cased email. With client_gravatar the client computes it and gets null.
 */
export function avatarUrl(user: UserRecord, clientGravatar: boolean): string | null {
  if (user.avatarSource === 'G') {
    if (clientGravatar) return null;
    const hash = createHash('md5').update(user.email.toLowerCase()).digest('hex');
    return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${user.avatarVersion}`;
  }
  // An uploaded avatar (api/avatars/): its files are named by the random avatarKey.
  return `/user_avatars/${user.realmId}/${user.avatarKey ?? user.id}.png?version=${user.avatarVersion}`;
}

/**
 * The medium-size avatar the reference gives the user themself (/register, avatar changes):
 * Gravatar at 500 pixels, or the `-medium` variant of an uploaded avatar.
 */
export function mediumAvatarUrl(user: UserRecord): string {
  const url = avatarUrl(user, false)!;
  return user.avatarSource === 'G' ? url.replace('?d=identicon', '?d=identicon&s=500') : url.replace(/\.png\?/, '-medium.png?');
}

/** `2019-10-20T07:50:53+00:00`: the reference's isoformat, which older Python clients can parse ('Z' they cannot). */
export function isoTimestamp(seconds: number): string {
  let text = isoCache.get(seconds);
  if (text === undefined) {
    // Every /register formats every user's date_joined: remember them (a user's never changes).
    if (isoCache.size >= 100_000) isoCache.clear();
    isoCache.set(seconds, (text = new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00')));
  }
  return text;
}

const isoCache = new Map<number, string>();

export interface UserViewOptions {
  clientGravatar?: boolean;
  /** Add `profile_data` (non-bots only, as in the reference): the custom profile field values. */
  includeProfileData?: boolean;
  /**
   * The requester is a spectator (no account): the reference hides the real email and time zone
   * and gives the join date to the day only.
   */
  spectator?: boolean;
}

/**
 * A user as GET /users and GET /users/{user_id} give it (the reference's User).
 *
 * Every email is treated as visible to every member (email_address_visibility "everyone"), so
 * `email` is the real address and `delivery_email` repeats it.
 */
export function userView(user: UserRecord, opts: UserViewOptions = {}): Record<string, unknown> {
  const view: Record<string, unknown> = {
    user_id: user.id,
    delivery_email: opts.spectator ? null : user.email,
    email: user.email,
    full_name: user.fullName,
    date_joined: opts.spectator ? isoTimestamp(user.dateJoined).slice(0, 10) : isoTimestamp(user.dateJoined),
    is_active: user.isActive,
    is_owner: user.role === ROLE.owner,
    is_admin: user.role <= ROLE.administrator,
    is_guest: user.role === ROLE.guest,
    is_bot: user.isBot,
    bot_type: user.botType,
    role: user.role,
    timezone: user.timezone,
    avatar_url: avatarUrl(user, opts.clientGravatar ?? false),
    avatar_version: user.avatarVersion,
  };
  if (opts.spectator) delete view.timezone;
  if (user.isBot) view.bot_owner_id = user.botOwnerId;
  else if (opts.includeProfileData && !opts.spectator) view.profile_data = profileDataView(user);
  return view;
}

/**
 * A user's custom profile field values by field id, as the reference's profile_data: the value,
 * and for the text types its rendering.
 */
export function profileDataView(user: UserRecord): Record<string, { value: string; rendered_value?: string }> {
  const out: Record<string, { value: string; rendered_value?: string }> = {};
  for (const [id, { value, rendered }] of Object.entries(user.profileData ?? {})) out[id] = rendered === undefined ? { value } : { value, rendered_value: rendered };
  return out;
}

/**
 * GET /users/me: the requester's own record. The reference's schema for it has no bot fields,
 * and it always computes the avatar URL.
 */
export function ownUserView(user: UserRecord): Record<string, unknown> {
  const view = userView(user, { clientGravatar: false });
  delete view.bot_type;
  delete view.bot_owner_id;
  if (!user.isBot) view.profile_data = profileDataView(user);
  return view;
}

/** The name the reference gives every user a restricted guest cannot access. */
export const UNKNOWN_USER_NAME = 'Unknown user';

/**
 * What a restricted guest is shown of a user they cannot access (the reference's
 * get_data_for_inaccessible_user): placeholder data whose only variable part is the id, and the
 * dummy address `user<id>@<realm host>`, which GET /users/{email} accepts.
 */
export function inaccessibleUserView(realmUrl: string, userId: number): Record<string, unknown> {
  return {
    email: `user${userId}@${new URL(realmUrl).hostname}`,
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    role: ROLE.member,
    is_bot: false,
    full_name: UNKNOWN_USER_NAME,
    timezone: '',
    is_active: true,
    date_joined: isoTimestamp(0),
    delivery_email: null,
    avatar_url: '/static/images/unknown-user-avatar.png',
    profile_data: {},
  };
}
