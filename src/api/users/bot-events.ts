import type { RealmState } from '../../model/realm-state.js';
import { ROLE, type UserRecord } from '../../model/types.js';
import type { ShardEvent } from '../../shard/events.js';
import { botDict, botOwnerUserIds } from './bot-views.js';

/**
 * The realm_bot events, as the reference sends them. They go only to those who administer the
 * bot (views.ts botOwnerUserIds); realm_user events tell everyone else what they may know.
 */
export type Send = (event: ShardEvent, userIds: Iterable<number>) => void;

export function sendBotCreated(send: Send, realm: RealmState, bot: UserRecord): void {
  send({ type: 'realm_bot', op: 'add', bot: botDict(realm, bot) }, botOwnerUserIds(realm, bot));
}

/** realm_bot update with one changed property (or a few), to those who administer the bot. */
export function sendBotUpdate(send: Send, realm: RealmState, bot: UserRecord, fields: Record<string, unknown>): void {
  send({ type: 'realm_bot', op: 'update', bot: { user_id: bot.id, ...fields } }, botOwnerUserIds(realm, bot));
}

/**
 * A new owner (the reference's send_bot_owner_update_events): a previous owner who is no
 * administrator loses the bot (delete), a new one who is none gains it (add), every other
 * administrator hears of the new owner_id, and everyone of the new bot_owner_id.
 */
export function sendOwnerChange(send: Send, realm: RealmState, bot: UserRecord, owner: UserRecord, previous: UserRecord | undefined): void {
  let update = new Set(botOwnerUserIds(realm, bot));
  if (previous && previous.role > ROLE.administrator) {
    if (previous.isActive) send({ type: 'realm_bot', op: 'delete', bot: { user_id: bot.id } }, [previous.id]);
    update.delete(previous.id);
  }
  if (owner.role > ROLE.administrator) {
    send({ type: 'realm_bot', op: 'add', bot: botDict(realm, bot) }, [owner.id]);
    update = new Set([...update].filter((id) => id !== owner.id));
  }
  send({ type: 'realm_bot', op: 'update', bot: { user_id: bot.id, owner_id: owner.id } }, update);
  send({ type: 'realm_user', op: 'update', person: { user_id: bot.id, bot_owner_id: owner.id } }, realm.activeUserIds());
}
