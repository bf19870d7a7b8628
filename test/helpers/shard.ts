import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { doCreateRealm } from '../../src/api/realm/actions.js';
import { createInitialChannels } from '../../src/api/streams/actions.js';
import { loadConfig, resolveConfig } from '../../src/config.js';
import type { RealmState } from '../../src/model/realm-state.js';
import type { UserRecord } from '../../src/model/types.js';
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
  return { shard, realm, owner, dataDir };
}
