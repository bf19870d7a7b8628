import { ApiError, badRequest } from '../../lib/errors.js';
import { directTo, type DraftRecord } from '../../model/personal.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { userRows } from '../../store/personal.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { userSetting } from '../../model/user-settings.js';
import { MAX_TOPIC_LENGTH, normalizeContent, resolveRecipients } from '../messages/send.js';
import { hasContentAccess } from '../streams/access.js';
import { writeOwnRow } from '../../api-kit/personal.js';
import type { DraftInput } from './validate.js';

/**
 * Drafts, after the reference's zerver/lib/drafts.py: a user's unsent messages, kept on the
 * server so that their other clients see them (drafts events). Only the user ever sees them.
 */

/** The reference's MAX_DRAFTS_IN_REGISTER_RESPONSE: /register sends the most recent ones. */
export const MAX_DRAFTS_IN_REGISTER = 1000;

export type DraftFields = Omit<DraftRecord, 'id'>;

/** Every draft endpoint first: the reference's draft_endpoint decorator. */
export function checkDraftsEnabled(user: UserRecord): void {
  if (userSetting(user, 'enable_drafts_synchronization') === false) throw badRequest('User has disabled synchronizing drafts.');
}

const draftNotFound = () => new ApiError('Draft does not exist', { status: 404 });

/** The reference's truncate_topic (drafts keep "(no topic)" as written). */
function truncateTopic(topic: string): string {
  const chars = [...topic];
  return chars.length > MAX_TOPIC_LENGTH ? chars.slice(0, MAX_TOPIC_LENGTH - 3).join('') + '...' : topic;
}

/**
 * The reference's further_validated_draft_dict: the content as a message would be stored, the
 * timestamp filled in, exactly one channel the user can read for a channel draft, real users for
 * a direct one; an unaddressed draft (or a direct one to nobody) keeps no recipient or topic.
 */
export function checkDraft(realm: RealmState, user: UserRecord, input: DraftInput): DraftFields {
  const content = normalizeContent(input.content);
  const timestamp = input.timestamp ?? Date.now() / 1000;
  if (timestamp < 0) throw badRequest('Timestamp must not be negative.');
  const draft: DraftFields = { type: '', to: [], topic: '', content, timestamp: Math.floor(timestamp) };
  if (input.type === 'stream') {
    const topic = truncateTopic(input.topic);
    if (topic.includes('\0')) throw badRequest('Topic must not contain null bytes');
    if (input.to.length !== 1) throw badRequest('Must specify exactly 1 channel ID for channel messages');
    const stream = realm.streams.get(input.to[0]);
    if (!stream || stream.isArchived || !hasContentAccess(realm, user, stream)) throw badRequest('Invalid channel ID');
    return { ...draft, type: 'stream', to: [stream.id], topic };
  }
  if (input.type === 'private' && input.to.length > 0) {
    const users = resolveRecipients(realm, input.to);
    return { ...draft, type: 'private', to: directTo(user.id, users.map((u) => u.id)) };
  }
  return draft;
}

const key = (realm: RealmState, userId: number, id: number) => [realm.id, userId, id];

/** A user's drafts, oldest edit first (GET /drafts), or newest first and at most `limit` (/register). */
export function listDrafts(shard: Shard, realm: RealmState, userId: number, order: 'asc' | 'desc' = 'asc', limit = Infinity): DraftRecord[] {
  const sign = order === 'asc' ? 1 : -1;
  const drafts = userRows<DraftRecord>(shard.store.drafts, realm.id, userId).sort((a, b) => sign * (a.timestamp - b.timestamp || a.id - b.id));
  return drafts.slice(0, limit);
}

export const draftView = (d: DraftRecord) => ({ id: d.id, type: d.type, to: d.to, topic: d.topic, content: d.content, timestamp: d.timestamp });

export async function doCreateDrafts(shard: Shard, realm: RealmState, user: UserRecord, drafts: DraftFields[]): Promise<number[]> {
  const batch = shard.batch();
  const created = drafts.map((fields) => {
    const draft: DraftRecord = { id: shard.allocate(batch, 'draft'), ...fields };
    batch.put(shard.store.drafts, key(realm, user.id, draft.id), draft);
    return draft;
  });
  batch.emit(realm.id, { type: 'drafts', op: 'add', drafts: created.map(draftView) }, [user.id]);
  await batch.commit();
  return created.map((d) => d.id);
}

function ownDraft(shard: Shard, realm: RealmState, user: UserRecord, id: number): DraftRecord {
  const draft = shard.read<DraftRecord>(shard.store.drafts, key(realm, user.id, id));
  if (!draft) throw draftNotFound();
  return draft;
}

/** Checks that the draft exists (before its new content is checked, as the reference does). */
export function checkOwnDraft(shard: Shard, realm: RealmState, user: UserRecord, id: number): void {
  ownDraft(shard, realm, user, id);
}

export async function doEditDraft(shard: Shard, realm: RealmState, user: UserRecord, id: number, fields: DraftFields): Promise<void> {
  ownDraft(shard, realm, user, id);
  const draft: DraftRecord = { id, ...fields };
  await writeOwnRow(shard, realm, user.id, shard.store.drafts, key(realm, user.id, id), draft, { type: 'drafts', op: 'update', draft: draftView(draft) });
}

export async function doDeleteDraft(shard: Shard, realm: RealmState, user: UserRecord, id: number): Promise<void> {
  ownDraft(shard, realm, user, id);
  await writeOwnRow(shard, realm, user.id, shard.store.drafts, key(realm, user.id, id), undefined, { type: 'drafts', op: 'remove', draft_id: id });
}

/**
 * Turning enable_drafts_synchronization off deletes the user's drafts on the settings change's
 * batch, without drafts events, as the reference's do_change_user_setting does: clients keep
 * their local copies.
 */
export function deleteAllDrafts(shard: Shard, batch: WriteBatch, realm: RealmState, user: UserRecord): void {
  for (const draft of userRows<DraftRecord>(shard.store.drafts, realm.id, user.id)) batch.del(shard.store.drafts, key(realm, user.id, draft.id));
}
