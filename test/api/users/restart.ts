import type { CreatedRealm } from '../../../src/api/realm/actions.js';
import { loadConfig, type ResolvedConfig } from '../../../src/lib/config.js';
import type { RealmState } from '../../../src/model/realm-state.js';
import type { Role } from '../../../src/model/types.js';
import { createRealm, inProcess } from '../../../src/realms.js';
import { startServer } from '../../../src/server.js';
import { Shard } from '../../../src/shard/shard.js';
import { Directory } from '../../../src/store/directory.js';
import type { TestServer } from '../../helpers/server.js';

/**
 * Changes the API cannot make yet (a user's role, a realm setting, a second realm), applied the
 * way an operator would: stop the server, work on the store in-process, start again on the same
 * port and data directory. `ts.request` keeps working, since the port and host stay the same.
 */
export async function restart<T>(t: { teardown(fn: () => unknown): void }, ts: TestServer, offline: (config: ResolvedConfig) => Promise<T>): Promise<T> {
  const config = ts.server.config;
  await ts.server.close();
  const result = await offline(config);
  const server = await startServer(
    loadConfig({}, { port: ts.port, bind: '127.0.0.1', dataDir: ts.dataDir, shards: config.shards, logLevel: 'silent', fetchApiKeyRateLimit: config.fetchApiKeyRateLimit }),
  );
  // tap runs teardowns last-registered first: this server stops before startTestServer's
  // teardown removes the data directory.
  t.teardown(() => server.close());
  return result;
}

/** Applies `change` to every realm's in-memory state and writes realms and users back. */
export function editRealms(change: (realm: RealmState) => void) {
  return async (config: ResolvedConfig): Promise<void> => {
    for (let index = 0; index < config.shards; index++) {
      const shard = Shard.open(index, config);
      const batch = shard.batch();
      for (const realm of shard.realms.values()) {
        change(realm);
        batch.put(shard.store.realms, realm.id, realm.realm);
        for (const user of realm.users.values()) batch.put(shard.store.users, [realm.id, user.id], user);
      }
      await batch.commit();
      await shard.close();
    }
  };
}

/** Gives the users with these emails new roles. */
export const setRoles = (roles: Record<string, Role>) =>
  editRealms((realm) => {
    for (const [email, role] of Object.entries(roles)) {
      const user = realm.userByEmail(email);
      if (user) user.role = role;
    }
  });

/** Sets a realm setting in every realm. */
export const setRealmSetting = (name: string, value: unknown) =>
  editRealms((realm) => {
    realm.realm.settings[name] = value;
  });

/** Creates another realm, answering at `<subdomain>.<external host>`. */
export const addRealm = (subdomain: string, ownerEmail: string) => async (config: ResolvedConfig): Promise<CreatedRealm> => {
  const directory = new Directory(config.dataDir);
  try {
    return await createRealm(config, directory, inProcess(config), { subdomain, name: `Realm ${subdomain}`, ownerEmail, ownerFullName: 'Other Owner', ownerPassword: 'other-password-1' });
  } finally {
    await directory.close();
  }
};
