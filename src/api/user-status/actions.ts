import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord, UserStatusRecord } from '../../model/types.js';
import { usersWhoCanAccess } from '../../model/user-access.js';
import type { Shard } from '../../shard/shard.js';
import { userSetting } from '../../model/user-settings.js';
import { checkEmoji, emojiByName } from '../messages/reactions.js';
import { doUpdateSettings } from '../settings/actions.js';

/**
 * User status, after the reference's check_update_user_status and do_update_user_status. A
 * request changes only what it names: the text, the emoji (name, code and type together), and
 * `away`, which since feature level 148 is the presence_enabled setting seen from the other side.
 * The emoji is checked exactly as a reaction's is (messages/reactions.ts).
 */
export interface StatusParams {
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

/** A checked change: undefined leaves a part as it is. */
export interface StatusChange {
  away?: boolean;
  statusText?: string;
  emoji?: { name: string; code: string; type: string };
}

export const STATUS_TEXT_MAX = 60;

export function checkStatusUpdate(realm: RealmState, p: StatusParams): StatusChange {
  // The reference strips the text before it measures it.
  const statusText = p.status_text?.trim();
  if (statusText !== undefined && [...statusText].length > STATUS_TEXT_MAX) {
    // A typed_endpoint length error in the reference: BAD_REQUEST, no var_name (the API suite checks).
    throw badRequest(`status_text is too long (limit: ${STATUS_TEXT_MAX} characters)`);
  }
  if (p.away === undefined && statusText === undefined && p.emoji_name === undefined) throw badRequest('Client did not pass any new values.');
  const change: StatusChange = { away: p.away, statusText };
  if (p.emoji_name === '') {
    // An empty name clears the emoji, whatever code and type came with it.
    change.emoji = { name: '', code: '', type: 'unicode_emoji' };
  } else if (p.emoji_name !== undefined) {
    let code = p.emoji_code;
    let type = p.reaction_type;
    if (code === undefined || type === undefined) {
      const found = emojiByName(realm, p.emoji_name);
      code ??= found.code;
      type ??= found.type;
    }
    checkEmoji(realm, p.emoji_name, code, type);
    change.emoji = { name: p.emoji_name, code, type };
  } else if (p.emoji_code || p.reaction_type) {
    throw badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  }
  return change;
}

/**
 * Applies a checked change. `away` goes through the settings action first (its user_settings
 * events and the presence switch), as the reference's do_change_user_setting does; then the
 * status row is written, created on first use, and the user_status event names what changed.
 */
export async function doUpdateStatus(shard: Shard, realm: RealmState, user: UserRecord, change: StatusChange): Promise<void> {
  if (change.away !== undefined && userSetting(user, 'presence_enabled') === change.away) {
    await doUpdateSettings(shard, realm, user, { fullName: null, settings: new Map([['presence_enabled', !change.away]]), newPassword: null, newEmail: null }, null);
  }
  const before = realm.people.statuses.get(user.id);
  const status: UserStatusRecord = {
    statusText: change.statusText ?? before?.statusText ?? '',
    emojiName: change.emoji?.name ?? before?.emojiName ?? '',
    emojiCode: change.emoji?.code ?? before?.emojiCode ?? '',
    reactionType: change.emoji?.type ?? before?.reactionType ?? 'unicode_emoji',
    timestamp: Math.floor(Date.now() / 1000),
  };
  realm.people.statuses.set(user.id, status);
  const event: Record<string, unknown> & { type: string } = { type: 'user_status', user_id: user.id };
  if (change.away !== undefined) event.away = change.away;
  if (change.statusText !== undefined) event.status_text = change.statusText;
  if (change.emoji) Object.assign(event, { emoji_name: change.emoji.name, emoji_code: change.emoji.code, reaction_type: change.emoji.type });
  const batch = shard.batch();
  batch.put(shard.store.userStatus, [realm.id, user.id], status);
  batch.emit(realm.id, event, usersWhoCanAccess(shard, realm, user));
  await batch.commit();
}
