import { doCreateRealm, type CreatedRealm, type NewRealm } from '../api/realm/actions.js';
import type { Shard } from './shard.js';

/** Operations of the server itself (first-start bootstrap), not reachable over HTTP. */
export type AdminTask = { kind: 'admin'; op: 'createRealm'; spec: NewRealm } | { kind: 'admin'; op: 'ping' };

export async function runAdmin(shard: Shard, task: AdminTask): Promise<CreatedRealm | number> {
  switch (task.op) {
    case 'createRealm':
      return doCreateRealm(shard, task.spec);
    case 'ping':
      return shard.index;
  }
}
