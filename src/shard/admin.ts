import { doCreateRealm, type NewRealm } from '../api/realm/actions.js';
import type { Shard } from './shard.js';
import { deliverMail, knowsAddress, type InboundMail } from '../api/email-gateway/deliver.js';
import { runRealmMove, type RealmMoveTask } from './realm-moves.js';

/** Operations of the server itself (first-start bootstrap), not reachable over HTTP. */
export type AdminTask =
  | { kind: 'admin'; op: 'createRealm'; spec: NewRealm }
  | { kind: 'admin'; op: 'ping' }
  /** The email gateway (front/smtp.ts): is this a channel address here, and posting a mail to it. */
  | { kind: 'admin'; op: 'mailRecipient'; to: string }
  | { kind: 'admin'; op: 'mail'; mail: InboundMail }
  /** A cluster moving a realm (shard/realm-moves.ts). */
  | RealmMoveTask;

export async function runAdmin(shard: Shard, task: AdminTask): Promise<unknown> {
  switch (task.op) {
    case 'createRealm':
      return doCreateRealm(shard, task.spec);
    case 'ping':
      return shard.index;
    case 'mailRecipient':
      return knowsAddress(shard, task.to);
    case 'mail':
      return deliverMail(shard, task.mail);
    default:
      return runRealmMove(shard, task);
  }
}
