import { deleteUserSessions } from '../../store/sessions.js';
import { exportConsentEvent } from './export-consent.js';
import { userSetting } from '../../model/user-settings.js';
import { generateApiKey, hashPassword } from '../../lib/auth.js';
import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { BOT_TYPE, ROLE, type Role, type StreamRecord, type UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { inaccessibleUserView } from './views.js';
import { personForEvent } from './access-events.js';
import { canAccessUser, usersWhoCanAccess } from '../../model/user-access.js';
import { addSubscriptions, defaultChannels, queuePeerEvents } from '../subscriptions/actions.js';
import { flush, outbox, type Outbox } from '../../shard/outbox.js';
import { setReadMark } from '../../model/read-state.js';
import { directGroupsOf } from '../../model/groups.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { newUserSettings } from '../../model/user-settings.js';
import { groupEventsForActivation } from '../user_groups/user-activity.js';
import type { BotProfile } from '../../model/types.js';
import { sendBotCreated, sendBotUpdate, sendOwnerChange } from './bot-events.js';

export interface NewUser {
  email: string;
  fullName: string;
  role?: Role;
  password?: string | null;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
  timezone?: string;
  /** A system bot comes into being silently: no events, no groups, no default channels. */
  isSystemBot?: boolean;
  /** A bot's default channels and service (api/bots/). */
  bot?: BotProfile;
  /** The channels to join instead of the realm's default channels (an invitation names its own). */
  streams?: StreamRecord[];
  /**
   * Further writes and events for the account's own transaction, made once the user exists (an
   * invitation marked used, its groups joined): the account and they are committed together.
   */
  inSameTransaction?: (out: Outbox, user: UserRecord) => void;
}

const EMAIL = /^[^@\s]+@[^@\s]+\.?[^@\s]*$/;

// Characters the reference refuses in names: they would break its mention syntax
// (@**Name**) or markup, and control characters have no business in a name.
const NAME_INVALID = /[*`\\>"@\p{Cc}\p{Cs}\p{Cn}]/u;

/** The reference's check_full_name: the trimmed name, or the error it gives. */
export function checkFullName(raw: string): string {
  const name = raw.trim();
  if (name.length > 100) throw badRequest('Name too long!');
  if (name.length === 0) throw badRequest('Name too short!');
  if (NAME_INVALID.test(name)) throw badRequest('Invalid characters in name!');
  // `Name|15` reads as a mention of user 15 to sloppy parsers of the mention syntax.
  if (/\|\d+$/.test(raw)) throw badRequest('Invalid format!');
  return name;
}

export function checkCreateUser(realm: RealmState, spec: NewUser): void {
  checkFullName(spec.fullName);
  if (!EMAIL.test(spec.email)) throw badRequest(`Invalid email '${spec.email}'`);
  if (realm.userByEmail(spec.email)) throw badRequest(`Email '${spec.email}' already in use`);
}

/**
 * Writes a user record changed in place, and tells the realm, whose caches of derived user
 * lists depend on every record.
 */
export function saveUser(shard: Shard, batch: WriteBatch, realm: RealmState, user: UserRecord): void {
  realm.usersChanged();
  batch.put(shard.store.users, [realm.id, user.id], user);
}

/** Active human owners: the reference's "last owner" rule counts these. */
export function activeHumanOwners(realm: RealmState): UserRecord[] {
  return [...realm.users.values()].filter((u) => u.isActive && !u.isBot && u.role === ROLE.owner);
}

/** Creates a user: state, LMDB and the realm_user add event. */
export async function doCreateUser(shard: Shard, realm: RealmState, spec: NewUser): Promise<UserRecord> {
  checkCreateUser(realm, spec);
  const passwordHash = spec.password ? await hashPassword(spec.password) : null;
  // Hashing yields the thread: check again, another request may have taken the email meanwhile.
  checkCreateUser(realm, spec);
  const out = outbox(shard);
  const { batch } = out;
  const user: UserRecord = {
    id: shard.allocate(batch, 'user'),
    realmId: realm.id,
    email: spec.email,
    fullName: spec.fullName.trim(),
    role: spec.role ?? ROLE.member,
    isBot: spec.isBot ?? false,
    botType: spec.botType ?? null,
    botOwnerId: spec.botOwnerId ?? null,
    isActive: true,
    timezone: spec.timezone ?? '',
    dateJoined: Math.floor(Date.now() / 1000),
    avatarSource: 'G',
    avatarVersion: 1,
    apiKey: generateApiKey(),
    passwordHash,
    // The realm's defaults for new users; later changes to them leave this user as they are.
    settings: spec.isSystemBot ? {} : newUserSettings(realm.realm),
  };
  if (spec.isSystemBot) user.isSystemBot = true;
  if (spec.bot && user.isBot && !user.isSystemBot) user.bot = spec.bot;
  realm.setUser(user);
  batch.put(shard.store.users, [realm.id, user.id], user);
  // Nothing sent before the user existed is theirs to read.
  setReadMark(shard, batch, realm, user.id, shard.messageIds.current());
  if (user.isSystemBot) {
    await batch.commit();
    return user;
  }
  // The full person, as the reference sends it; the avatar URL is computed here, and a queue
  // registered with client_gravatar may drop it to null for Gravatar users. Guests who cannot
  // access the newcomer (yet: the default channels may introduce them next) get the "Unknown
  // user" placeholder, marked so that queues with user_list_incomplete drop it (events/shape.ts).
  const knowing: number[] = [];
  const unknowing: number[] = [];
  for (const other of realm.activeUsers()) (canAccessUser(shard, realm, other, user) ? knowing : unknowing).push(other.id);
  batch.emit(realm.id, { type: 'realm_user', op: 'add', person: personForEvent(user) }, knowing);
  if (unknowing.length > 0) batch.emit(realm.id, { type: 'realm_user', op: 'add', person: inaccessibleUserView(realm.url, user.id), inaccessible_user: true }, unknowing);
  emitGroupJoins(batch, realm, user);
  if (!user.isBot) emitConsent(batch, realm, user);
  // Those who administer a new bot also get its API key and services (realm_bot add).
  if (user.isBot) sendBotCreated((event, ids) => batch.emit(realm.id, event, ids), realm, user);
  // The account, its channels and whatever the caller adds are one transaction: no account
  // exists without them after a crash. Only humans join the default channels (the reference's
  // process_new_human_user).
  const streams = spec.streams ?? (user.isBot ? [] : defaultChannels(realm));
  if (streams.length > 0) addSubscriptions(shard, realm, out, streams, [user], { fromUserCreation: true });
  spec.inSameTransaction?.(out, user);
  await flush(shard, realm, out);
  return user;
}

/**
 * A new user joins their role's system group: clients keep group members, so they are told, as
 * the reference tells them, with user_group add_members. (Deactivation and reactivation:
 * user_groups/user-activity.ts.)
 */
function emitConsent(batch: WriteBatch, realm: RealmState, user: UserRecord): void {
  const { event, userIds } = exportConsentEvent(realm, user, userSetting(user, 'allow_private_data_export') === true);
  batch.emit(realm.id, event, userIds);
}

function emitGroupJoins(batch: WriteBatch, realm: RealmState, user: UserRecord): void {
  const audience = realm.activeUserIds();
  for (const groupId of directGroupsOf(realm, user)) {
    batch.emit(realm.id, { type: 'user_group', op: 'add_members', group_id: groupId, user_ids: [user.id] }, audience);
  }
}

async function setActive(shard: Shard, realm: RealmState, users: UserRecord[], isActive: boolean, actor?: UserRecord): Promise<void> {
  const out = outbox(shard);
  const { batch } = out;
  // A bot reactivated while its owner is deactivated passes to whoever reactivates it.
  const previousOwner = new Map<number, UserRecord | undefined>();
  for (const user of users) {
    const owner = user.botOwnerId === null ? undefined : realm.users.get(user.botOwnerId);
    if (isActive && actor && user.isBot && owner && !owner.isActive) {
      previousOwner.set(user.id, owner);
      user.botOwnerId = actor.id;
    }
  }
  // In place: a request already holding this record (its authenticated user) sees the change.
  for (const user of users) {
    user.isActive = isActive;
    saveUser(shard, batch, realm, user);
    // As the reference's delete_user_sessions: a reactivated account logs in afresh.
    if (!isActive) deleteUserSessions(shard, batch, realm.id, user.id);
  }
  // Since feature level 222 (de)activation is a realm_user update carrying is_active, sent to
  // the users who remain (or become) active and can access the user (level 303).
  for (const user of users) {
    batch.emit(realm.id, { type: 'realm_user', op: 'update', person: { user_id: user.id, is_active: isActive } }, usersWhoCanAccess(shard, realm, user));
    groupEventsForActivation(shard, realm, user, (event, ids) => batch.emit(realm.id, event, ids));
    if (isActive && !user.isBot) emitConsent(batch, realm, user);
    if (user.isBot && !user.isSystemBot) {
      const send = (event: Parameters<typeof batch.emit>[1], ids: Iterable<number>) => batch.emit(realm.id, event, ids);
      sendBotUpdate(send, realm, user, { is_active: isActive });
      if (previousOwner.has(user.id)) sendOwnerChange(send, realm, user, actor!, previousOwner.get(user.id));
    }
  }
  // Subscriber lists leave deactivated users out, and clients drop them on deactivation; on
  // reactivation they are told the user is back, as the reference tells them, with peer_add.
  if (isActive) {
    const pairs = users.flatMap((user) => [...realm.subscriptionsOf(user.id).keys()].flatMap((id) => (realm.streams.get(id) ? [{ user, stream: realm.streams.get(id)! }] : [])));
    queuePeerEvents(realm, out, 'peer_add', pairs);
  }
  await flush(shard, realm, out);
}

/**
 * Deactivates a user and, as the reference does, the active bots they own, so that no API key
 * tied to the account keeps working. The caller has checked permissions and the last-owner rule.
 */
export async function doDeactivateUser(shard: Shard, realm: RealmState, target: UserRecord): Promise<void> {
  if (!target.isActive) return;
  const bots = target.isBot ? [] : [...realm.users.values()].filter((u) => u.isBot && u.isActive && u.botOwnerId === target.id);
  await setActive(shard, realm, [target, ...bots], false);
}

/**
 * Reactivates one user; their bots stay as they are, as in the reference. A bot whose owner is
 * deactivated passes to `actor`.
 */
export async function doReactivateUser(shard: Shard, realm: RealmState, target: UserRecord, actor?: UserRecord): Promise<void> {
  if (target.isActive) return;
  await setActive(shard, realm, [target], true, actor);
}

/**
 * A realm's system bot (Notification Bot, Welcome Bot, Email Gateway): the reference has one of
 * each for all realms; here each realm has its own, shown as the reference shows its bots (in
 * cross_realm_bots, a member of nothing). Made with the realm, or silently on first use in a realm
 * made before the bot existed.
 */
export async function systemBot(shard: Shard, realm: RealmState, email: string, fullName: string): Promise<UserRecord> {
  const existing = realm.userByEmail(email);
  if (existing) return existing;
  return doCreateUser(shard, realm, { email, fullName, role: ROLE.member, isBot: true, botType: BOT_TYPE.generic, isSystemBot: true });
}
