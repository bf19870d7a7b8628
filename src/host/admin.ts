import { doCreateRealm, type NewRealm } from '../api/realm/actions.js';
import type { Shard } from '../shard/shard.js';
import { compactHeap } from '../lib/compact-heap.js';
import { shardMetrics } from './metrics.js';
import { runUserCommand, type UserCommand } from './user-commands.js';
import { doSetRealmDeactivated } from '../api/realm/deactivate.js';
import { deliverMail, knowsAddress, type InboundMail } from '../api/email-gateway/deliver.js';
import { runRealmMove, type RealmMoveTask } from './realm-moves.js';

/** Operations of the server itself (first-start bootstrap), not reachable over HTTP. */
export type AdminTask =
  | { kind: 'admin'; op: 'createRealm'; spec: NewRealm }
  | { kind: 'admin'; op: 'ping' }
  /** GET /metrics: the shard's metrics (host/metrics.ts); GET /health: its store answers. */
  | { kind: 'admin'; op: 'metrics' }
  | { kind: 'admin'; op: 'health' }
  /** The admin CLI through the running server (front/admin-socket.ts). */
  | { kind: 'admin'; op: 'userCommand'; realmId: number; command: UserCommand }
  | { kind: 'admin'; op: 'setRealmDeactivated'; realmId: number; deactivated: boolean }
  /** The email gateway (front/smtp.ts): is this a channel address here, and posting a mail to it. */
  | { kind: 'admin'; op: 'mailRecipient'; to: string }
  | { kind: 'admin'; op: 'mail'; mail: InboundMail }
  /** The check after start (server.ts) found these tables of the shard's store damaged: refuse their reads. */
  | { kind: 'admin'; op: 'damaged'; tables: [table: string, detail: string][] }
  /** The server has been idle since its start: this thread's heap gives back what the start grew (host/compact-when-idle.ts). */
  | { kind: 'admin'; op: 'compactHeap' }
  /** A cluster moving a realm (host/realm-moves.ts). */
  | RealmMoveTask;

export async function runAdmin(shard: Shard, task: AdminTask): Promise<unknown> {
  switch (task.op) {
    case 'metrics':
      return shardMetrics(shard);
    case 'userCommand': {
      const realm = shard.realm(task.realmId);
      if (!realm) return { ok: false, error: `realm ${task.realmId} is not on shard ${shard.index}` };
      return runUserCommand(shard, realm, task.command);
    }
    case 'setRealmDeactivated': {
      const realm = shard.realm(task.realmId);
      return realm ? doSetRealmDeactivated(shard, realm, task.deactivated) : false;
    }
    case 'health':
      // A read of the store, not only of memory: a shard whose environment cannot be read is not healthy.
      return { realms: shard.realms.size, stored: shard.store.realms.getCount() };
    case 'createRealm':
      return doCreateRealm(shard, task.spec);
    case 'ping':
      return shard.index;
    case 'mailRecipient':
      return knowsAddress(shard, task.to);
    case 'mail':
      return deliverMail(shard, task.mail);
    case 'compactHeap':
      return compactHeap();
    case 'damaged':
      for (const [table, detail] of task.tables) shard.damage.damaged(table, detail);
      return true;
    default:
      return runRealmMove(shard, task);
  }
}
