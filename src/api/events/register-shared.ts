import type { RealmState } from '../../model/realm-state.js';
import type { Shard } from '../../shard/shard.js';
import { RawFields } from '../../lib/raw-json.js';

/**
 * The sections of POST /register that are the same for every user of a realm (its settings, its
 * groups, its custom emoji, ...: the builders take the realm, never the user), kept as their
 * serialised JSON until the realm changes, so that a register copies them instead of building
 * and serialising them again (about 0.4 ms of a register's 2.3 ms on the shard, bench P7b).
 *
 * What "the realm changes" means is told by the events: every change a client can see is told
 * to clients by an event, which is what keeps these sections current in a client, so the cache
 * is dropped when a transaction stages an event of the realm of any type except those that only
 * concern messages or one user's own state (IGNORED). The events are staged when their
 * transaction starts (EventBus.stage), and a register runs only once no transaction is in
 * flight (Shard.quiesced), so a register after a change never finds the old copy; a change made
 * in memory before its batch is staged is, as for a fresh build, told by its event, which the
 * new queue then receives. A repair of memory after a failed commit tells no events: it drops
 * every realm's copy.
 */

/** Event types that do not change any section kept here. Anything else drops the realm's copy. */
const IGNORED = new Set([
  'message',
  'update_message',
  'delete_message',
  'update_message_flags',
  'reaction',
  'submessage',
  'typing',
  'typing_edit_message',
  'presence',
  'heartbeat',
  'drafts',
  'scheduled_messages',
  'reminders',
  'saved_snippets',
  'navigation_view',
  'user_topic',
  'muted_topics',
  'muted_users',
  'alert_words',
  'has_zoom_token',
  'web_reload_client',
]);

interface RealmParts {
  /** Bumped by every event of the realm not IGNORED. */
  version: number;
  parts: Map<string, { version: number; fields: RawFields }>;
}

/** Each shard's realms' copies; a repair replaces the map. */
const shards = new WeakMap<Shard, { realms: WeakMap<RealmState, RealmParts> }>();

function partsOf(shard: Shard, realm: RealmState): RealmParts {
  let held = shards.get(shard);
  if (!held) {
    const made = { realms: new WeakMap<RealmState, RealmParts>() };
    held = made;
    shards.set(shard, made);
    shard.events.observers.push((events) => {
      for (const { realmId, event } of events) {
        if (IGNORED.has(event.type)) continue;
        const state = shard.realm(realmId);
        const entry = state && made.realms.get(state);
        if (entry) entry.version++;
      }
    });
    shard.repaired.push(() => {
      made.realms = new WeakMap();
    });
  }
  let entry = held.realms.get(realm);
  if (!entry) held.realms.set(realm, (entry = { version: 0, parts: new Map() }));
  return entry;
}

/**
 * The fields `build()` gives, as JSON (RawFields), kept under `key` until the realm changes.
 * `key` names the section and every option its builder reads (a capability, ...).
 */
export function sharedFields(shard: Shard, realm: RealmState, key: string, build: () => Record<string, unknown>): RawFields {
  const entry = partsOf(shard, realm);
  const hit = entry.parts.get(key);
  if (hit && hit.version === entry.version) return hit.fields;
  const fields = RawFields.flat(build());
  entry.parts.set(key, { version: entry.version, fields });
  return fields;
}
