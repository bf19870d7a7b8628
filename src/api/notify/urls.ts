import type { RealmState } from '../../model/realm-state.js';
import type { StreamRecord } from '../../model/types.js';
import { encodeChannel, encodeHashComponent } from '../messages/notices.js';

/** The narrow URLs emails link to (the reference's zerver/lib/url_encoding.py). */

/** encode_user_full_name_and_id: `9-King-Hamlet`. */
export function personalNarrowUrl(realm: RealmState, userId: number, fullName: string): string {
  return `${realm.url}/#narrow/dm/${userId}-${fullName.trim().replace(/[ "%/<>`\p{C}]+/gu, '-')}`;
}

/** encode_user_ids: `13,23,9-group` for three people or more. */
export function groupNarrowUrl(realm: RealmState, userIds: number[]): string {
  const ids = [...userIds].sort((a, b) => a - b);
  return `${realm.url}/#narrow/dm/${ids.join(',')}${ids.length >= 3 ? '-group' : ''}`;
}

export function streamNarrowUrl(realm: RealmState, stream: StreamRecord): string {
  return `${realm.url}/#narrow/channel/${encodeChannel(stream)}`;
}

export function topicNarrowUrl(realm: RealmState, stream: StreamRecord, topic: string): string {
  return `${streamNarrowUrl(realm, stream)}/topic/${encodeHashComponent(topic)}`;
}

/** stream_message_url: the message itself (`near`), or the conversation it is in (`with`). */
export function channelMessageUrl(realm: RealmState, stream: StreamRecord, topic: string, messageId: number, conversation: boolean): string {
  return `${topicNarrowUrl(realm, stream, topic)}/${conversation ? 'with' : 'near'}/${messageId}`;
}
