import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { doCreateRealm } from '../../../src/api/realm/actions.js';
import { doCreateUser } from '../../../src/api/users/actions.js';
import { loadConfig, resolveConfig } from '../../../src/lib/config.js';
import type { RealmState } from '../../../src/model/realm-state.js';
import { ROLE, type Role, type UserRecord } from '../../../src/model/types.js';
import { dispatch } from '../../../src/host/dispatch.js';
import type { ShardEvent } from '../../../src/shard/events.js';
import { Shard } from '../../../src/shard/shard.js';

/**
 * A shard run in the test's own thread, with its realm and users created directly. Two things
 * need it that HTTP cannot give yet: users of every role (no endpoint changes roles), and the
 * events a do-action emits (no event queues yet). Requests still go through the dispatcher, so
 * authentication and parameter decoding are the server's own.
 */
export interface EmittedEvent {
  realmId: number;
  event: ShardEvent;
  userIds: number[];
}

export interface ShardHarness {
  shard: Shard;
  realm: RealmState;
  owner: UserRecord;
  events: EmittedEvent[];
  user(role: Role, opts?: { isBot?: boolean; email?: string }): Promise<UserRecord>;
  call(op: string, user: UserRecord | null, params?: Record<string, unknown>): Promise<{ status: number; body: any }>;
}

let counter = 0;

export async function startShard(t: { teardown(fn: () => unknown): void }): Promise<ShardHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stoa-shard-test-'));
  const config = resolveConfig(loadConfig({}, { dataDir, logLevel: 'silent', port: 0, bind: '127.0.0.1' }), 9991);
  const shard = Shard.open(0, config);
  const created = await doCreateRealm(shard, { id: 1, subdomain: '', name: 'Test realm', ownerEmail: 'owner@example.com', ownerFullName: 'Owner' });
  const realm = shard.realm(1)!;
  const events: EmittedEvent[] = [];
  shard.events.subscribe((realmId, event, userIds) => events.push({ realmId, event, userIds: [...userIds] }));
  t.teardown(async () => {
    await shard.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    shard,
    realm,
    owner: created.owner,
    events,
    user: (role, opts = {}) =>
      doCreateUser(shard, realm, {
        email: opts.email ?? `user${++counter}@example.com`,
        fullName: `User ${counter}`,
        role,
        isBot: opts.isBot,
        botType: opts.isBot ? 1 : null,
        botOwnerId: opts.isBot ? created.owner.id : null,
      }),
    async call(op, user, params = {}) {
      const authorization = user ? `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}` : undefined;
      const reply = await dispatch(shard, { kind: 'request', op, realmId: 1, authorization, params, pathParams: {}, userAgent: 'test', remoteAddr: '127.0.0.1' });
      return { status: reply.status, body: JSON.parse(reply.body) };
    },
  };
}

export { ROLE };
