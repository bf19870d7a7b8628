import { generatePassword } from '../../lib/auth.js';
import { badRequest } from '../../lib/errors.js';
import { buildSystemGroups } from '../../model/groups.js';
import { RealmState } from '../../model/realm-state.js';
import { defaultRealmSettings } from '../../model/realm-settings.js';
import { ROLE, type RealmRecord, type UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { welcomeBot } from '../invites/onboarding.js';
import { notificationBot } from '../messages/notices.js';
import { createInitialChannels } from '../streams/actions.js';
import { checkCreateUser, doCreateUser } from '../users/actions.js';

export interface NewRealm {
  /** Allocated by the realm directory, unique across shards. */
  id: number;
  subdomain: string;
  name: string;
  ownerEmail: string;
  ownerFullName: string;
  /** Generated when absent. */
  ownerPassword?: string;
}

export interface CreatedRealm {
  realm: RealmRecord;
  owner: UserRecord;
  ownerPassword: string;
  url: string;
}

/** Realm.MAX_REALM_NAME_LENGTH in the reference. */
export const MAX_REALM_NAME = 40;

/** Subdomains as the reference allows them: lower-case letters, digits and inner hyphens. */
export const SUBDOMAIN = /^(|[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?)$/;

/** Creates a realm with its system groups, default settings and owner account. */
export async function doCreateRealm(shard: Shard, spec: NewRealm): Promise<CreatedRealm> {
  if (!SUBDOMAIN.test(spec.subdomain)) throw badRequest(`Invalid subdomain '${spec.subdomain}'`);
  if (shard.realm(spec.id)) throw badRequest(`Realm ${spec.id} already exists`);
  const name = spec.name.trim();
  if (name.length === 0 || name.length > MAX_REALM_NAME) throw badRequest(`The organization name must be 1 to ${MAX_REALM_NAME} characters`);
  const ownerSpec = { email: spec.ownerEmail, fullName: spec.ownerFullName, role: ROLE.owner, password: spec.ownerPassword ?? generatePassword() };
  const now = Math.floor(Date.now() / 1000);
  const batch = shard.batch();
  const groups = buildSystemGroups(() => shard.allocate(batch, 'group'), now);
  const groupId = (name: string) => groups.find((g) => g.name === name)!.id;
  const realm: RealmRecord = {
    id: spec.id,
    subdomain: spec.subdomain,
    name,
    description: '',
    dateCreated: now,
    deactivated: false,
    settings: defaultRealmSettings(groupId),
    // A new organization's people start with Enter sending and Shift+Enter breaking a line, as
    // the web app's brief asks and as chat habits expect; the reference's server-wide default
    // (Ctrl+Enter sends) stays the API's, and an administrator changes this organization's
    // through PATCH /realm/user_settings_defaults (each person in their settings).
    userSettingsDefaults: { enter_sends: true },
  };
  const state = new RealmState(realm);
  checkCreateUser(state, ownerSpec);
  batch.put(shard.store.realms, realm.id, realm);
  for (const group of groups) {
    state.setGroup(group);
    batch.put(shard.store.groups, [realm.id, group.id], group);
  }
  await batch.commit();
  shard.addRealm(state);
  const owner = await doCreateUser(shard, state, ownerSpec);
  await createInitialChannels(shard, state, owner);
  await notificationBot(shard, state);
  await welcomeBot(shard, state);
  return { realm, owner, ownerPassword: ownerSpec.password, url: shard.realmUrl(realm) };
}
