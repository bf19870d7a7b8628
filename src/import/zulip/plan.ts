import { ImportError } from '../errors.js';
import { checkRows, type Row, type Tables, ZulipExport } from './read.js';
import { ATTACHMENT_FIELDS, MESSAGE_FIELDS, RECIPIENT, TABLE_FIELDS, USERMESSAGE_FIELDS } from './tables.js';

/**
 * The first pass over a reference export: every table and message file is read and checked, and
 * what the second pass needs to give everything its new id is collected. Nothing is written, so
 * a malformed export is refused whole (file, record, reason) before the store sees any of it.
 */
export interface Plan {
  source: ZulipExport;
  tables: Tables;
  attachments: Row[];
  importSource: string;
  /** Old user ids, ascending (people and bots of the realm, mirror dummies included). */
  userIds: number[];
  /** The reference's system bots the export refers to: old id -> address. */
  crossRealm: Map<number, string>;
  recipients: Map<number, { type: number; typeId: number }>;
  /** Group DM recipient id -> its members (old user ids, ascending). */
  huddleMembers: Map<number, number[]>;
  /** Old message ids in their new order (by id, or by date for exports that ask for it). */
  messageOrder: number[];
  usermessages: number;
}

const table = (tables: Tables, name: string): Row[] => tables[name] ?? [];

function checkTables(tables: Tables): void {
  for (const [name, fields] of Object.entries(TABLE_FIELDS)) {
    if (name === 'zerver_userprofile') {
      checkRows('realm.json', name, table(tables, name), fields);
      checkRows('realm.json', 'zerver_userprofile_mirrordummy', table(tables, 'zerver_userprofile_mirrordummy'), fields);
    } else checkRows('realm.json', name, table(tables, name), fields);
  }
}

/** Every reference from a row to another table must resolve; the first that does not is refused. */
function checkRefs(tables: Tables, users: Set<number>, recipients: Map<number, unknown>): void {
  const ids = (name: string, key = 'id') => new Set(table(tables, name).map((r) => r[key] as number));
  const streams = ids('zerver_stream');
  const groups = ids('zerver_usergroup');
  const fields = ids('zerver_customprofilefield');
  const refs: [string, string, Set<number> | Map<number, unknown>, boolean][] = [
    ['zerver_subscription', 'user_profile', users, false],
    ['zerver_subscription', 'recipient', recipients, false],
    ['zerver_usergroupmembership', 'user_group', groups, false],
    ['zerver_usergroupmembership', 'user_profile', users, false],
    ['zerver_groupgroupmembership', 'supergroup', groups, false],
    ['zerver_groupgroupmembership', 'subgroup', groups, false],
    ['zerver_defaultstream', 'stream', streams, false],
    ['zerver_customprofilefieldvalue', 'user_profile', users, false],
    ['zerver_customprofilefieldvalue', 'field', fields, false],
    ['zerver_usertopic', 'user_profile', users, false],
    ['zerver_usertopic', 'stream', streams, false],
    ['zerver_muteduser', 'user_profile', users, false],
    ['zerver_muteduser', 'muted_user', users, false],
    ['zerver_userstatus', 'user_profile', users, false],
    ['zerver_alertword', 'user_profile', users, false],
    ['zerver_scheduledmessage', 'sender', users, false],
    ['zerver_scheduledmessage', 'recipient', recipients, false],
    ['zerver_savedsnippet', 'user_profile', users, false],
    ['zerver_navigationview', 'user', users, false],
    ['zerver_draft', 'user_profile', users, false],
    ['zerver_draft', 'recipient', recipients, true],
    ['zerver_stream', 'creator', users, true],
    ['zerver_userprofile', 'bot_owner', users, true],
    ['zerver_realmemoji', 'author', users, true],
    ['zerver_reaction', 'user_profile', users, false],
    ['zerver_submessage', 'sender', users, false],
  ];
  for (const [name, field, target, nullable] of refs) {
    table(tables, name).forEach((row, i) => {
      const value = row[field] as number | null | undefined;
      if (value === null || value === undefined) {
        if (nullable) return;
      } else if (target.has(value)) return;
      throw new ImportError('realm.json', `${name}[${i}]`, `${field} ${String(value)} names no row of the export`);
    });
  }
  table(tables, 'zerver_recipient').forEach((row, i) => {
    const type = row.type as number;
    const target = type === RECIPIENT.stream ? streams : type === RECIPIENT.personal ? users : type === RECIPIENT.huddle ? ids('zerver_huddle') : null;
    if (!target) throw new ImportError('realm.json', `zerver_recipient[${i}]`, `unknown recipient type ${type}`);
    if (!target.has(row.type_id as number)) throw new ImportError('realm.json', `zerver_recipient[${i}]`, `type_id ${String(row.type_id)} names no row of the export`);
  });
}

export interface PlanProgress {
  (done: number, total: number): void;
}

export function plan(source: ZulipExport, progress: PlanProgress = () => {}): Plan {
  const tables = source.realm();
  const { importSource, sortByDate } = source.realmInfo();
  checkTables(tables);
  const people = [...table(tables, 'zerver_userprofile'), ...table(tables, 'zerver_userprofile_mirrordummy')];
  const userIds = people.map((u) => u.id as number).sort((a, b) => a - b);
  const crossRealm = new Map(table(tables, 'zerver_userprofile_crossrealm').map((u) => [u.id as number, u.email as string]));
  const users = new Set([...userIds, ...crossRealm.keys()]);
  if (users.size !== userIds.length + crossRealm.size) throw new ImportError('realm.json', 'zerver_userprofile', 'user ids are not unique');
  const recipients = new Map(table(tables, 'zerver_recipient').map((r) => [r.id as number, { type: r.type as number, typeId: r.type_id as number }]));
  // Cross-realm bots' personal recipients are not in zerver_recipient: they are theirs.
  for (const bot of table(tables, 'zerver_userprofile_crossrealm')) {
    const recipientId = bot.recipient_id;
    if (Number.isSafeInteger(recipientId)) recipients.set(recipientId as number, { type: RECIPIENT.personal, typeId: bot.id as number });
  }
  checkRefs(tables, users, recipients);

  const huddleMembers = new Map<number, number[]>();
  for (const sub of table(tables, 'zerver_subscription')) {
    const recipient = recipients.get(sub.recipient as number)!;
    if (recipient.type !== RECIPIENT.huddle) continue;
    const list = huddleMembers.get(sub.recipient as number) ?? [];
    list.push(sub.user_profile as number);
    huddleMembers.set(sub.recipient as number, list);
  }
  for (const list of huddleMembers.values()) list.sort((a, b) => a - b);

  const attachments = source.attachments();
  checkRows('attachment.json', 'zerver_attachment', attachments, ATTACHMENT_FIELDS);

  // Messages: every file once, keeping only ids (and dates, to order by them).
  const ids: number[] = [];
  const dates: number[] = [];
  const seen = new Set<number>();
  let usermessages = 0;
  source.messageFiles.forEach((name, n) => {
    const file = source.messages(name);
    checkRows(name, 'zerver_message', file.zerver_message, MESSAGE_FIELDS);
    checkRows(name, 'zerver_usermessage', file.zerver_usermessage, USERMESSAGE_FIELDS);
    const here = new Set<number>();
    file.zerver_message.forEach((m, i) => {
      const id = m.id as number;
      if (seen.has(id)) throw new ImportError(name, `zerver_message[${i}] (id ${id})`, 'message id appears twice in the export');
      if (!users.has(m.sender as number)) throw new ImportError(name, `zerver_message[${i}] (id ${id})`, `sender ${String(m.sender)} names no user of the export`);
      const recipient = recipients.get(m.recipient as number);
      if (!recipient) throw new ImportError(name, `zerver_message[${i}] (id ${id})`, `recipient ${String(m.recipient)} names no recipient of the export`);
      if (recipient.type === RECIPIENT.huddle && !huddleMembers.has(m.recipient as number)) throw new ImportError(name, `zerver_message[${i}] (id ${id})`, 'group direct message without members');
      if (m.edit_history) {
        try {
          if (!Array.isArray(JSON.parse(m.edit_history as string))) throw new Error('not a list');
        } catch (err) {
          throw new ImportError(name, `zerver_message[${i}] (id ${id})`, `edit_history is not a JSON list (${(err as Error).message})`);
        }
      }
      seen.add(id);
      here.add(id);
      ids.push(id);
      dates.push(Math.floor(m.date_sent as number));
    });
    file.zerver_usermessage.forEach((um, i) => {
      if (!here.has(um.message as number)) throw new ImportError(name, `zerver_usermessage[${i}]`, `message ${String(um.message)} is not in this file`);
      if (!users.has(um.user_profile as number)) throw new ImportError(name, `zerver_usermessage[${i}]`, `user_profile ${String(um.user_profile)} names no user of the export`);
    });
    usermessages += file.zerver_usermessage.length;
    progress(n + 1, source.messageFiles.length);
  });
  for (const [name, key] of [['zerver_reaction', 'message'], ['zerver_submessage', 'message']] as const) {
    table(tables, name).forEach((row, i) => {
      if (!seen.has(row[key] as number)) throw new ImportError('realm.json', `${name}[${i}]`, `${key} ${String(row[key])} names no message of the export`);
    });
  }
  const uploadFiles = new Map(source.records('uploads').map((r) => [String(r.s3_path ?? r.path), String(r.path)]));
  attachments.forEach((a, i) => {
    if (!users.has(a.owner as number)) throw new ImportError('attachment.json', `zerver_attachment[${i}] (id ${a.id as number})`, `owner ${String(a.owner)} names no user of the export`);
    const rel = uploadFiles.get(a.path_id as string) ?? (a.path_id as string);
    if (!source.has(`uploads/${rel}`)) throw new ImportError(`uploads/${rel}`, `zerver_attachment[${i}] (id ${a.id as number})`, 'the file is missing from the export');
  });

  const order = ids.map((_, i) => i);
  if (sortByDate) order.sort((a, b) => dates[a] - dates[b] || ids[a] - ids[b]);
  else order.sort((a, b) => ids[a] - ids[b]);
  return {
    source,
    tables,
    attachments,
    importSource,
    userIds,
    crossRealm,
    recipients,
    huddleMembers,
    messageOrder: order.map((i) => ids[i]),
    usermessages,
  };
}
