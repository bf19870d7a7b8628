import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { doCreateRealm } from '../../src/api/realm/actions.js';
import { createInitialChannels } from '../../src/api/streams/actions.js';
import { loadConfig, resolveConfig } from '../../src/lib/config.js';
import type { RealmState } from '../../src/model/realm-state.js';
import { ROLE, type Role, type UserRecord } from '../../src/model/types.js';
import { subscribeToDefaultChannels } from '../../src/api/subscriptions/actions.js';
import { doCreateUser } from '../../src/api/users/actions.js';
import { dispatch } from '../../src/host/dispatch.js';
import { Shard } from '../../src/shard/shard.js';

/**
 * A shard run in the test's own thread, on a temporary data directory, with realm 1 (its owner
 * and the default channel) created. For what HTTP cannot reach: listening on the shard's event
 * bus, users of every role, records aged in place. Requests still go through the dispatcher.
 */
export interface InProcessShard {
  shard: Shard;
  realm: RealmState;
  owner: UserRecord;
  dataDir: string;
  /** A user `<name>@example.com` with that role, subscribed to the default channels. */
  member(name: string, role?: Role): Promise<UserRecord>;
  /**
   * Runs an operation as `user` through the dispatcher. Parameters travel as form values (text,
   * or JSON for the rest) unless `raw`, as the front end would hand them over.
   */
  call(user: UserRecord, op: string, params?: Record<string, unknown>, opts?: { raw?: boolean }): Promise<{ status: number; body: any }>;
}

export async function inProcessShard(t: { teardown(fn: () => unknown): void }, name = 'Test realm'): Promise<InProcessShard> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-shard-test-'));
  const shard = Shard.open(0, resolveConfig(loadConfig({}, { dataDir, shards: 1, logLevel: 'silent' }), 0));
  t.teardown(async () => {
    await shard.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const { owner } = await doCreateRealm(shard, { id: 1, subdomain: '', name, ownerEmail: 'owner@example.com', ownerFullName: 'Owner' });
  const realm = shard.realm(1)!;
  await createInitialChannels(shard, realm, owner);
  return {
    shard,
    realm,
    owner,
    dataDir,
    async member(name, role = ROLE.member) {
      const user = await doCreateUser(shard, realm, { email: `${name}@example.com`, fullName: name, role });
      await subscribeToDefaultChannels(shard, realm, user);
      return user;
    },
    async call(user, op, params = {}, opts = {}) {
      const form = opts.raw ? params : Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
      const authorization = `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`;
      const reply = await dispatch(shard, { kind: 'request', op, realmId: 1, authorization, params: form, pathParams: {}, userAgent: 'test', remoteAddr: '127.0.0.1' });
      return { status: reply.status, body: JSON.parse(reply.body) };
    },
  };
}
