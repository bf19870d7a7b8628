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
  return `/user_avatars/${user.realmId}/${user.id}.png?version=${user.avatarVersion}`;
}

export interface UserViewOptions {
  clientGravatar?: boolean;
}

/** A user as GET /users lists it (the reference's UserBase). */
export function userView(user: UserRecord, opts: UserViewOptions = {}): Record<string, unknown> {
  const view: Record<string, unknown> = {
    user_id: user.id,
    delivery_email: user.email,
    email: user.email,
    full_name: user.fullName,
    date_joined: new Date(user.dateJoined * 1000).toISOString(),
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
  if (user.isBot) view.bot_owner_id = user.botOwnerId;
  return view;
}
