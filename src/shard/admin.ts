import { doCreateRealm, type CreatedRealm, type NewRealm } from '../api/realm/actions.js';
import type { Shard } from './shard.js';
import { deliverMail, knowsAddress, type InboundMail } from '../api/email-gateway/deliver.js';

/** Operations of the server itself (first-start bootstrap), not reachable over HTTP. */
export type AdminTask =
  | { kind: 'admin'; op: 'createRealm'; spec: NewRealm }
  | { kind: 'admin'; op: 'ping' }
  /** The email gateway (front/smtp.ts): is this a channel address here, and posting a mail to it. */
  | { kind: 'admin'; op: 'mailRecipient'; to: string }
  | { kind: 'admin'; op: 'mail'; mail: InboundMail }
  /** The check after start (server.ts) found these tables of the shard's store damaged: refuse their reads. */
  | { kind: 'admin'; op: 'damaged'; tables: [table: string, detail: string][] };

export async function runAdmin(shard: Shard, task: AdminTask): Promise<CreatedRealm | number | boolean | string> {
  switch (task.op) {
    case 'createRealm':
      return doCreateRealm(shard, task.spec);
    case 'ping':
      return shard.index;
    case 'mailRecipient':
      return knowsAddress(shard, task.to);
    case 'mail':
      return deliverMail(shard, task.mail);
    case 'damaged':
      for (const [table, detail] of task.tables) shard.damage.damaged(table, detail);
      return true;
  }
}
