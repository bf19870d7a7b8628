import type { RealmState } from '../../model/realm-state.js';
import type { GroupSetting, StreamRecord, UserRecord } from '../../model/types.js';
import { flush, outbox, queueEvent, type Outbox } from '../../shard/outbox.js';
import type { Shard } from '../../shard/shard.js';
import { subscribeToDefaultChannels } from '../subscriptions/actions.js';
import { metadataUserIds } from './access.js';
import { defaultChannelGroups } from './checks.js';
import { renderDescription, streamView } from './views.js';

export interface NewStream {
  /** Already checked and stripped (checks.ts checkStreamName). */
  name: string;
  description?: string;
  inviteOnly?: boolean;
  isWebPublic?: boolean;
  /** null: the reference's default (true for public channels, false for private ones). */
  historyPublicToSubscribers?: boolean | null;
  messageRetentionDays?: number | null;
  isDefault?: boolean;
  /** Settings not given take their defaults (checks.ts CHANNEL_SETTING_RULES). */
  groups?: Record<string, GroupSetting>;
  /** A channel folder, checked by the caller. */
  folderId?: number | null;
}

/**
 * Creates a channel in memory and on the outbox's batch, and queues its stream create event for
 * the users who can see it. The caller has run the checks (name free, creation permitted).
 */
export function createStream(shard: Shard, realm: RealmState, out: Outbox, spec: NewStream, creator: UserRecord | null): StreamRecord {
  const inviteOnly = spec.inviteOnly ?? false;
  // Public channels always share history with subscribers; private ones default to not.
  const historyPublic = inviteOnly ? (spec.historyPublicToSubscribers ?? false) : true;
  const description = spec.description ?? '';
  const stream: StreamRecord = {
    id: shard.allocate(out.batch, 'stream'),
    realmId: realm.id,
    name: spec.name,
    description,
    renderedDescription: renderDescription(realm, creator, description),
    inviteOnly,
    historyPublicToSubscribers: historyPublic,
    isWebPublic: spec.isWebPublic ?? false,
    isArchived: false,
    isDefault: spec.isDefault ?? false,
    dateCreated: Math.floor(Date.now() / 1000),
    creatorId: creator?.id ?? null,
    messageRetentionDays: spec.messageRetentionDays ?? null,
    groups: { ...defaultChannelGroups(realm, creator), ...spec.groups },
    folderId: spec.folderId ?? null,
    // No message yet (only stores from before the field derive it at load).
    firstMessageId: null,
  };
  realm.setStream(stream);
  out.batch.put(shard.store.streams, [realm.id, stream.id], stream);
  queueEvent(out, { type: 'stream', op: 'create', streams: [streamView(realm, stream)] }, metadataUserIds(realm, stream));
  return stream;
}

export const INITIAL_CHANNEL = { name: 'general', description: 'For team-wide conversations' };

/**
 * The channel a new realm starts with, as the reference's realm creation makes it: public, no
 * recorded creator, and a realm default channel, so the owner (and every later user, through
 * subscribeToDefaultChannels) is subscribed to it. Does nothing if it exists already.
 */
export async function createInitialChannels(shard: Shard, realm: RealmState, owner: UserRecord): Promise<void> {
  if (!realm.streamByName(INITIAL_CHANNEL.name)) {
    const out = outbox(shard);
    createStream(shard, realm, out, { ...INITIAL_CHANNEL, isDefault: true }, null);
    await flush(shard, realm, out);
  }
  await subscribeToDefaultChannels(shard, realm, owner);
}
