import type { RealmState } from '../../model/realm-state.js';
import { realmSetting } from '../../model/realm-settings.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { userSetting } from '../../model/user-settings.js';
import { presenceOf, type PresenceRecord } from './state.js';

/** The reference's presence settings (server_presence_* in /register). */
export const PRESENCE_PING_INTERVAL_SECS = 60;
export const OFFLINE_THRESHOLD_SECS = 200;
/** Reports closer together than this change nothing (several windows of one user ping each minute). */
const UPDATE_MIN_FREQ_SECS = 55;
/** A legacy-format status is "active" if the last activity is at most this much older than the last connection. */
const LEGACY_ACTIVITY_OFFSET_SECS = 70;
/** Above this many active users, coming online is not announced by event: clients learn it by polling. */
export const PRESENCE_EVENT_USER_LIMIT = 100;
/** How far back an initial fetch looks when the client does not say. */
const DEFAULT_HISTORY_DAYS = 14;
const DAY = 86400;

export type Status = 'active' | 'idle';

const nowSecs = () => Math.floor(Date.now() / 1000);

/**
 * A user never reported active counts as active when they joined, as the reference has it, but
 * never after their last connection: an invisible user who joined minutes ago must not read as
 * active now (their record is back-dated, see doSwitchPresenceSharing).
 */
const activeTime = (user: UserRecord, r: PresenceRecord) => r.lastActive ?? Math.min(user.dateJoined, r.lastConnected);

/** The modern format: the two timestamps. */
export function modernPresence(user: UserRecord, r: PresenceRecord): Record<string, number> {
  return { active_timestamp: activeTime(user, r), idle_timestamp: r.lastConnected };
}

/** One client's entry of the legacy format; the server no longer tracks clients, so it is always "website". */
export function legacyClientPresence(user: UserRecord, r: PresenceRecord): { client: string; status: Status; timestamp: number; pushable: boolean } {
  const active = activeTime(user, r);
  const isActive = active + LEGACY_ACTIVITY_OFFSET_SECS >= r.lastConnected;
  return { client: 'website', status: isActive ? 'active' : 'idle', timestamp: isActive ? active : r.lastConnected, pushable: false };
}

/** The legacy format: the website entry and the same as `aggregated`, without `pushable`. */
export function legacyPresence(user: UserRecord, r: PresenceRecord): Record<string, Record<string, unknown>> {
  const website = legacyClientPresence(user, r);
  return { aggregated: { client: website.client, status: website.status, timestamp: website.timestamp }, website };
}

export interface PresenceQuery {
  /** Modern format keyed by user id; else legacy keyed by email. */
  slim: boolean;
  /** Only records changed after this update id. */
  lastUpdateId?: number;
  historyLimitDays?: number;
}

/**
 * The realm's presence data as GET and POST presence and /register return it, with the newest
 * update id among it (or the client's own id when nothing changed, or -1 when there is none).
 * Bots and deactivated users have none; a realm with presence disabled has none at all.
 */
export function realmPresences(shard: Shard, realm: RealmState, q: PresenceQuery): { presences: Record<string, unknown>; lastUpdateId: number } {
  const presences: Record<string, unknown> = {};
  let lastUpdateId = q.lastUpdateId ?? -1;
  if (realmSetting(realm, 'presence_disabled') === true || q.historyLimitDays === 0) return { presences, lastUpdateId: -1 };
  const store = presenceOf(shard).realm(realm.id);
  // A client that already holds presence data asks only for what changed; the history limit
  // matters for a first fetch only.
  const incremental = q.lastUpdateId !== undefined && q.lastUpdateId > 0;
  const since = nowSecs() - (q.historyLimitDays ?? DEFAULT_HISTORY_DAYS) * DAY;
  const rows: Iterable<[number, PresenceRecord]> = q.lastUpdateId !== undefined ? store.changedSince(q.lastUpdateId) : store.records;
  for (const [userId, record] of rows) {
    if (!incremental && record.lastConnected < since) continue;
    const user = realm.users.get(userId);
    if (!user || !user.isActive || user.isBot) continue;
    presences[q.slim ? String(user.id) : user.email] = q.slim ? modernPresence(user, record) : legacyPresence(user, record);
    lastUpdateId = Math.max(lastUpdateId, record.lastUpdateId);
  }
  return { presences, lastUpdateId };
}

/** Users with presence data newer than `days` days: who counts as recently active. */
export function recentlyPresentUserIds(shard: Shard, realm: RealmState, days: number): Set<number> {
  const since = nowSecs() - days * DAY;
  const out = new Set<number>();
  for (const [userId, record] of presenceOf(shard).realm(realm.id).records) if (record.lastConnected >= since) out.add(userId);
  return out;
}

export function presenceRecord(shard: Shard, realm: RealmState, userId: number): PresenceRecord | undefined {
  return presenceOf(shard).realm(realm.id).records.get(userId);
}

/**
 * Records a user's report, after the reference's do_update_user_presence: the first report
 * creates the record; later ones move the connection (and, when active, activity) time, but
 * not more than once per UPDATE_MIN_FREQ_SECS. A user who comes online, or who becomes active
 * after long enough that others may already show them offline, is announced to the realm by a
 * `presence` event, unless the realm is too big for that or has presence disabled. `force`
 * announces the change whatever the realm (a user's own switch of invisible mode).
 */
export function doUpdatePresence(shard: Shard, realm: RealmState, user: UserRecord, status: Status, now = nowSecs(), force = false): void {
  const store = presenceOf(shard).realm(realm.id);
  const old = store.records.get(user.id);
  const sinceActive = old?.lastActive != null ? now - old.lastActive : DAY;
  const sinceConnected = old ? now - old.lastConnected : DAY;
  let record: PresenceRecord;
  if (!old) {
    record = { lastActive: status === 'active' ? now : null, lastConnected: now, lastUpdateId: 0 };
  } else {
    record = { ...old };
    if (sinceConnected > UPDATE_MIN_FREQ_SECS) record.lastConnected = now;
    if (status === 'active' && sinceActive > UPDATE_MIN_FREQ_SECS) {
      record.lastActive = now;
      record.lastConnected = Math.max(record.lastConnected, now);
    }
    if (record.lastActive === old.lastActive && record.lastConnected === old.lastConnected && !force) return;
  }
  record.lastUpdateId = presenceOf(shard).nextUpdateId();
  store.set(user.id, record);

  const becameOnline = status === 'active' && sinceActive > OFFLINE_THRESHOLD_SECS - PRESENCE_PING_INTERVAL_SECS - 10;
  if (!force && (realmSetting(realm, 'presence_disabled') === true || !(old === undefined || becameOnline))) return;
  const audience = realm.activeUserIds();
  if (audience.length > PRESENCE_EVENT_USER_LIMIT && !force) return;
  shard.events.emit(
    realm.id,
    { type: 'presence', user_id: user.id, email: user.email, server_timestamp: Date.now() / 1000, presence: { website: legacyClientPresence(user, record) } },
    audience,
  );
}

/** Invisible mode: a user with presence_enabled off shares no presence; their reports change nothing. */
export const sharesPresence = (user: UserRecord): boolean => userSetting(user, 'presence_enabled') !== false;

/**
 * A user switched invisible mode (presence_enabled), after the reference's do_change_user_setting.
 * Turning it on counts as a report of activity now. Turning it off replaces the user's record
 * by one that every client shows as offline (last seen a little past the offline threshold
 * ago, with room for clock skew), which stays until they turn it on again. Either way the
 * realm hears at once, so that the switch visibly takes effect.
 */
export function doSwitchPresenceSharing(shard: Shard, realm: RealmState, user: UserRecord, enabled: boolean): void {
  const now = nowSecs();
  if (enabled) return doUpdatePresence(shard, realm, user, 'active', now, true);
  presenceOf(shard).realm(realm.id).records.delete(user.id);
  doUpdatePresence(shard, realm, user, 'idle', now - OFFLINE_THRESHOLD_SECS - 120, true);
}
