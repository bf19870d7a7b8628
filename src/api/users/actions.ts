import { generateApiKey, hashPassword } from '../../lib/auth.js';
import { badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import { ROLE, type Role, type UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';

export interface NewUser {
  email: string;
  fullName: string;
  role?: Role;
  password?: string | null;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
  timezone?: string;
}

const EMAIL = /^[^@\s]+@[^@\s]+\.?[^@\s]*$/;

export function checkCreateUser(realm: RealmState, spec: NewUser): void {
  if (!EMAIL.test(spec.email)) throw badRequest(`Invalid email '${spec.email}'`);
  if (realm.userByEmail(spec.email)) throw badRequest(`Email '${spec.email}' already in use`);
  const name = spec.fullName.trim();
  if (name.length === 0) throw badRequest('Name too short!');
  if (name.length > 100) throw badRequest('Name too long!');
}

/** Creates a user: state, LMDB and the realm_user add event. */
export async function doCreateUser(shard: Shard, realm: RealmState, spec: NewUser): Promise<UserRecord> {
  checkCreateUser(realm, spec);
  const passwordHash = spec.password ? await hashPassword(spec.password) : null;
  // Hashing yields the thread: check again, another request may have taken the email meanwhile.
  checkCreateUser(realm, spec);
  const batch = shard.batch();
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
    settings: {},
  };
  realm.setUser(user);
  batch.put(shard.store.users, [realm.id, user.id], user);
  await batch.commit();
  shard.events.emit(realm.id, { type: 'realm_user', op: 'add', person: { user_id: user.id } }, realm.users.keys());
  return user;
}
