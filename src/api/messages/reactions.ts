import { applyParticipationPolicy } from '../user-topics/automatic.js';
import { ApiError, badRequest } from '../../lib/errors.js';
import { emojiTables } from '../../markdown/emoji.js';
import type { MessageRecord, ReactionRecord } from '../../model/message.js';
import { received } from '../../model/read-state.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { putMessage } from '../../store/messages.js';
import { me, operation } from '../../api-kit/operation.js';
import { activeSubscriberIds } from '../streams/access.js';
import { accessibleMessage, invalidMessage } from './access.js';
import { activeRealmEmoji } from '../../model/realm-emoji.js';

/**
 * Emoji reactions (POST and DELETE /messages/{message_id}/reactions), after the reference's
 * check_add_reaction and remove_reaction. A reaction is one user's vote for an emoji, identified
 * by (reaction_type, emoji_code); the name is a label, and the first voter's name wins.
 */
type ReactionType = ReactionRecord['reactionType'];

/** The one emoji of this kind: the reference ships its logo as a "zulip_extra_emoji". */
const EXTRA_EMOJI = 'zulip';

/**
 * The code and type of an emoji given by name only: the reference's get_emoji_data. An active
 * custom emoji wins over the built-in emoji of the same name, as it does in Markdown.
 */
export function emojiByName(realm: RealmState, name: string): { code: string; type: ReactionType } {
  const custom = activeRealmEmoji(realm, name);
  if (custom) return { code: String(custom.id), type: 'realm_emoji' };
  if (name === EXTRA_EMOJI) return { code: name, type: 'zulip_extra_emoji' };
  const code = emojiTables().nameToCode.get(name);
  if (code !== undefined) return { code, type: 'unicode_emoji' };
  throw badRequest(`Emoji '${name}' does not exist`);
}

/**
 * Whether a new reaction's name, code and type agree: the reference's check_emoji_request. A
 * Unicode emoji's name must be one the name table (markdown/emoji.ts) gives that code: its
 * canonical name or an alias. A custom emoji is named by its id, deactivated ones included, so
 * the error says which of the three is wrong.
 */
export function checkEmoji(realm: RealmState, name: string, code: string, type: string): asserts type is ReactionType {
  if (type === 'realm_emoji') {
    const custom = /^\d+$/.test(code) ? realm.realmEmoji.get(Number(code)) : undefined;
    if (!custom) throw badRequest('Invalid custom emoji.');
    if (custom.name !== name) throw badRequest('Invalid custom emoji name.');
    if (custom.deactivated) throw badRequest('This custom emoji has been deactivated.');
    return;
  }
  if (type === 'zulip_extra_emoji') {
    if (code !== EXTRA_EMOJI) throw badRequest('Invalid emoji code.');
    if (name !== code) throw badRequest('Invalid emoji name.');
    return;
  }
  if (type === 'unicode_emoji') {
    const tables = emojiTables();
    if (!tables.codeToName.has(code)) throw badRequest('Invalid emoji code.');
    if (tables.nameToCode.get(name) !== code) throw badRequest('Invalid emoji name.');
    return;
  }
  throw badRequest('Invalid emoji type.');
}

/** A message the user may react to: readable by them, and not in an archived channel. */
function reactableMessage(shard: Shard, realm: RealmState, user: UserRecord, id: number): MessageRecord {
  const msg = accessibleMessage(shard, realm, user, id);
  if (msg.kind === 'stream' && realm.streams.get(msg.streamId!)?.isArchived) throw invalidMessage();
  return msg;
}

/**
 * Who hears about a reaction, after the reference's event_recipient_ids_for_action_on_messages:
 * a direct message's participants; a channel's subscribers, only those who received the message
 * when the channel's history is protected; and the reacting user.
 */
function reactionAudience(realm: RealmState, msg: MessageRecord, actorId: number): number[] {
  const ids = new Set<number>();
  if (msg.kind === 'direct') {
    for (const id of msg.dm!) if (realm.users.get(id)?.isActive) ids.add(id);
  } else {
    const stream = realm.streams.get(msg.streamId!);
    const protectedHistory = stream !== undefined && stream.inviteOnly && !stream.historyPublicToSubscribers;
    for (const id of activeSubscriberIds(realm, msg.streamId!)) if (!protectedHistory || received(realm, id, msg)) ids.add(id);
  }
  ids.add(actorId);
  return [...ids];
}

function reactionEvent(user: UserRecord, msg: MessageRecord, r: ReactionRecord, op: 'add' | 'remove'): Record<string, unknown> & { type: string } {
  return {
    type: 'reaction',
    op,
    user_id: user.id,
    user: { user_id: user.id, email: user.email, full_name: user.fullName },
    message_id: msg.id,
    emoji_name: r.emojiName,
    emoji_code: r.emojiCode,
    reaction_type: r.reactionType,
  };
}

/**
 * Writes the message with its new reactions and tells its audience. The message was read and
 * changed in the same synchronous step (shard.read sees uncommitted writes), so two reactions
 * arriving together both land.
 */
async function saveReactions(shard: Shard, realm: RealmState, user: UserRecord, msg: MessageRecord, reactions: ReactionRecord[], r: ReactionRecord, op: 'add' | 'remove'): Promise<void> {
  const batch = shard.batch();
  putMessage(shard, batch, { ...msg, reactions });
  const stream = msg.kind === 'stream' ? realm.streams.get(msg.streamId!) : undefined;
  if (op === 'add' && stream) {
    applyParticipationPolicy(shard, realm, { batch, emit: (event, ids) => batch.emit(realm.id, event, ids) }, user, stream, msg.topic);
  }
  batch.emit(realm.id, reactionEvent(user, msg, r, op), reactionAudience(realm, msg, user.id));
  await batch.commit();
}

const sameEmoji = (r: ReactionRecord, code: string, type: string) => r.emojiCode === code && r.reactionType === type;

interface ReactionParams {
  message_id: number;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

const schema = {
  properties: {
    message_id: { type: 'integer' },
    emoji_name: { type: 'string' },
    emoji_code: { type: 'string' },
    reaction_type: { type: 'string' },
  },
};

/** POST /messages/{message_id}/reactions */
const add = operation<ReactionParams & { emoji_name: string }>({
  auth: 'user',
  params: { ...schema, required: ['message_id', 'emoji_name'] },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm, params: p } = ctx;
    const msg = reactableMessage(shard, realm, user, p.message_id);
    let code = p.emoji_code;
    let type = p.reaction_type;
    if (code === undefined || type === undefined) {
      const found = emojiByName(realm, p.emoji_name);
      code ??= found.code;
      type ??= found.type;
    }
    if (msg.reactions.some((r) => r.userId === user.id && sameEmoji(r, code, type))) {
      throw new ApiError('Reaction already exists.', { code: 'REACTION_ALREADY_EXISTS' });
    }
    // A vote for an emoji already on the message takes that reaction's name, unchecked: it may
    // come from older emoji data, and the vote should still count.
    const existing = msg.reactions.find((r) => sameEmoji(r, code, type));
    let name = p.emoji_name;
    if (existing) name = existing.emojiName;
    else checkEmoji(realm, name, code, type);
    const reaction: ReactionRecord = { emojiName: name, emojiCode: code, reactionType: type as ReactionType, userId: user.id };
    await saveReactions(shard, realm, user, msg, [...msg.reactions, reaction], reaction, 'add');
    return {};
  },
});

/** DELETE /messages/{message_id}/reactions */
const remove = operation<ReactionParams>({
  auth: 'user',
  params: { ...schema, required: ['message_id'] },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm, params: p } = ctx;
    const msg = reactableMessage(shard, realm, user, p.message_id);
    let code = p.emoji_code;
    let type = p.reaction_type;
    if (code === undefined) {
      if (p.emoji_name === undefined) throw badRequest('At least one of the following arguments must be present: emoji_name, emoji_code');
      const found = emojiByName(realm, p.emoji_name);
      code = found.code;
      type ??= found.type;
    }
    type ??= 'unicode_emoji';
    // The pair is not checked against the emoji data: it was valid when the reaction was added,
    // and removing a vote for an emoji that has since gone must still work.
    const mine = msg.reactions.find((r) => r.userId === user.id && sameEmoji(r, code, type));
    if (!mine) throw new ApiError("Reaction doesn't exist.", { code: 'REACTION_DOES_NOT_EXIST' });
    await saveReactions(shard, realm, user, msg, msg.reactions.filter((r) => r !== mine), mine, 'remove');
    return {};
  },
});

export const operations = {
  'messages.addReaction': add,
  'messages.removeReaction': remove,
};
