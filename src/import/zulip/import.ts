import { randomBytes } from 'node:crypto';
import { renderMessage } from '../../api/messages/render.js';
import { READ_FLIP } from '../../model/message.js';
import { storedBits, writeBits } from '../../model/read-state.js';
import { RealmState, type SubInterval } from '../../model/realm-state.js';
import { SYSTEM_GROUPS } from '../../model/groups.js';
import type { Shard } from '../../shard/shard.js';
import { BulkBatch } from '../bulk.js';
import { IdMap } from '../ids.js';
import type { Progress } from '../progress.js';
import { ReadStateBuilder } from '../readstate.js';
import { writeOrganization, realmStateOf, type Organization } from './finish.js';
import { Rewriter } from './links.js';
import { importMessageFile, indexTables, mentionsOf, type MessageContext } from './messages.js';
import { buildNamedGroups, buildRealm, buildStreams, buildSubscriptions, buildSystemBots, buildSystemGroupRecords, buildUsers, GroupValues, rows, userId, type Ids } from './org.js';
import { buildPeople } from './people.js';
import { plan as makePlan, type Plan } from './plan.js';
import type { ZulipExport } from './read.js';
import { attachmentRecords, avatarImages, copyUploads, emojiImages, messageLinks, newUploadPaths, realmImages } from './uploads.js';

/**
 * Imports a reference-format export into a new realm of `shard`, as one resumable job:
 *
 *   check    read and check everything (plan.ts); a malformed export stops here, nothing written
 *   reserve  one transaction: id blocks for every kind, and the checkpoint `import:<realm>`
 *   messages one transaction per message file: its messages, indexes, flags, upload links, and
 *            the checkpoint moved past it (a crash repeats at most the file in flight, whose
 *            rows are rewritten in place with the same ids)
 *   flips    read-state exceptions, in batches (idempotent)
 *   finish   one transaction: the organization (finish.ts) and the checkpoint removed
 *
 * A resumed run reads the files already written once more, to rebuild the read state.
 */

interface Checkpoint {
  bases: Record<string, number>;
  secret: string;
  filesDone: number;
  flipsDone: boolean;
}

export interface ImportSummary {
  realmId: number;
  users: number;
  messages: number;
  /** People who keep their password (a Django hash in a scheme verified here). */
  passwordsKept: number;
  /** Active people with no usable password: they need a password reset. */
  needPasswordReset: string[];
}

const checkpointKey = (realmId: number) => `import:${realmId}`;
const MESSAGE_KINDS = ['message'];
const MESSAGES_PER_COMMIT = 5000;

function reservation(p: Plan): Record<string, number> {
  const named = rows(p, 'zerver_namedusergroup').filter((g) => !g.is_system_group).length;
  return {
    user: p.userIds.length + 3,
    stream: rows(p, 'zerver_stream').length,
    group: SYSTEM_GROUPS.length + named,
    message: p.messageOrder.length,
    submessage: rows(p, 'zerver_submessage').length,
    attachment: p.attachments.length,
    realmEmoji: rows(p, 'zerver_realmemoji').length,
    profileField: rows(p, 'zerver_customprofilefield').length,
    linkifier: rows(p, 'zerver_realmfilter').length,
    playground: rows(p, 'zerver_realmplayground').length,
    realmDomain: rows(p, 'zerver_realmdomain').length,
    channelFolder: rows(p, 'zerver_channelfolder').length,
    snippet: rows(p, 'zerver_savedsnippet').length,
    navigationView: rows(p, 'zerver_navigationview').length,
    scheduled: rows(p, 'zerver_scheduledmessage').length,
    draft: rows(p, 'zerver_draft').length,
    dmgroup: p.huddleMembers.size,
  };
}

async function reserve(shard: Shard, realmId: number, p: Plan): Promise<Checkpoint> {
  const batch = shard.batch();
  const bases: Record<string, number> = {};
  for (const [kind, count] of Object.entries(reservation(p))) bases[kind] = MESSAGE_KINDS.includes(kind) ? shard.reserveMessageIds(batch, count) : shard.reserve(batch, kind, count);
  const cp: Checkpoint = { bases, secret: randomBytes(16).toString('hex'), filesDone: 0, flipsDone: false };
  batch.put(shard.store.meta, checkpointKey(realmId), cp);
  await batch.commit();
  return cp;
}

function idMaps(p: Plan, cp: Checkpoint): Ids {
  const b = cp.bases;
  const named = rows(p, 'zerver_namedusergroup').filter((g) => !g.is_system_group).map((g) => g.usergroup_ptr as number);
  const sorted = (name: string, key = 'id') => rows(p, name).map((r) => r[key] as number).sort((x, y) => x - y);
  return {
    user: new IdMap('user', b.user, p.userIds),
    stream: new IdMap('stream', b.stream, sorted('zerver_stream')),
    group: new IdMap('group', b.group + SYSTEM_GROUPS.length, named.sort((x, y) => x - y)),
    message: new IdMap('message', b.message, p.messageOrder),
    attachment: new IdMap('attachment', b.attachment, p.attachments.map((a) => a.id as number).sort((x, y) => x - y)),
    emoji: new IdMap('realmEmoji', b.realmEmoji, sorted('zerver_realmemoji')),
    submessage: new IdMap('submessage', b.submessage, sorted('zerver_submessage')),
    bots: { notification: b.user + p.userIds.length + 1, welcome: b.user + p.userIds.length + 2, gateway: b.user + p.userIds.length + 3 },
    systemGroupBase: b.group,
    base: b,
  };
}

/** The first pass (plan.ts), with its progress: call it before anything is reserved. */
export function checkExport(source: ZulipExport, progress: Progress): Plan {
  progress.phase('checking', source.messageFiles.length);
  return makePlan(source, (done) => progress.tick(done));
}

export async function importZulip(shard: Shard, realmId: number, subdomain: string, p: Plan, progress: Progress): Promise<ImportSummary> {
  const source = p.source;
  const now = Math.floor(Date.now() / 1000);
  let cp = shard.read<Checkpoint>(shard.store.meta, checkpointKey(realmId));
  if (!cp) cp = await reserve(shard, realmId, p);
  const ids = idMaps(p, cp);

  // The organization, built in memory first: messages need its users and channels to render.
  const systemGroups = buildSystemGroupRecords(ids, now);
  const groupValues = new GroupValues(p, ids, systemGroups);
  const realmRecord = buildRealm(p, ids, realmId, subdomain, groupValues, systemGroups, now);
  const state = new RealmState(realmRecord);
  state.url = shard.realmUrl(realmRecord);
  const avatars = await avatarImages(p, ids);
  const avatarKeys = new Map([...avatars.keys()].map((id) => [id, randomBytes(12).toString('hex')]));
  const users = [...buildUsers(p, ids, realmId, now, avatarKeys), ...buildSystemBots(ids, realmId, now)];
  const groups = [...systemGroups, ...buildNamedGroups(p, ids, groupValues, systemGroups, now)];
  for (const g of groups) state.setGroup(g);
  for (const u of users) state.setUser(u);
  const render = (text: string) => (text === '' ? '' : renderMessage(text, { realm: state, sender: null }).html);
  const streams = buildStreams(p, ids, realmId, groupValues, systemGroups, now, render);
  for (const s of streams) state.setStream(s);

  const uploads = newUploadPaths(p, realmId, cp.secret);
  const oldRealm = p.tables.zerver_realm[0].id as number;
  const lookup = {
    user: (old: number) => (p.crossRealm.has(old) ? userId(p, ids, old) : ids.user.opt(old)),
    stream: (old: number) => ids.stream.opt(old),
    group: (old: number) => groupValues.isNamed(old) ? (groupValues.value(old, 0) as number) : null,
    message: (old: number) => ids.message.opt(old),
  };
  const people0 = rows(p, 'zerver_realmemoji');
  const rewrite = new Rewriter(lookup, uploads, new Map());
  const people = buildPeople(p, ids, realmId, users, now, rewrite, render);
  // Emoji images first: their format decides the file names messages link to.
  const emojiBytes = emojiImages(p, ids, people.emoji);
  const emojiPaths = new Map(people0.map((e) => [`/user_avatars/${oldRealm}/emoji/images/${String(e.file_name)}`, `/user_avatars/${realmId}/emoji/images/${people.emoji.find((x) => x.id === ids.emoji.get(e.id as number))!.fileName}`]));
  const messageRewrite = new Rewriter(lookup, uploads, emojiPaths);
  for (const e of people.emoji) state.realmEmoji.set(e.id, e);

  const readState = new ReadStateBuilder(cp.bases.message, p.messageOrder.length);
  const links = messageLinks(p, ids);
  const linkDates = new Map<number, { id: number; dateSent: number }[]>();
  const ctx: MessageContext = {
    plan: p,
    ids,
    realm: state,
    rewrite: messageRewrite,
    ...indexTables({ plan: p, ids }),
    links,
    readState,
    render: (content, senderId) => {
      const r = renderMessage(content, { realm: state, sender: state.users.get(senderId) ?? null });
      return { html: r.html, mentions: mentionsOf(r.html) };
    },
  };
  await copyUploads(p, shard.config.dataDir, uploads);

  progress.phase('messages', source.messageFiles.length);
  // Several files a transaction (about MESSAGES_PER_COMMIT messages): fewer syncs to disk.
  let batch = new BulkBatch(shard.store);
  let inBatch = 0;
  for (let n = 0; n < source.messageFiles.length; n++) {
    const file = source.messages(source.messageFiles[n]);
    for (const m of file.zerver_message) {
      for (const a of links.get(m.id as number) ?? []) {
        const list = linkDates.get(a) ?? [];
        list.push({ id: ids.message.get(m.id as number), dateSent: Math.floor((m.date_sent as number) * 1000) });
        linkDates.set(a, list);
      }
    }
    if (n < cp.filesDone) {
      importMessageFile(shard, null, ctx, file);
    } else {
      inBatch += importMessageFile(shard, batch, ctx, file);
      if (inBatch >= MESSAGES_PER_COMMIT || n === source.messageFiles.length - 1) {
        cp = { ...cp, filesDone: n + 1 };
        batch.put(shard.store.meta, checkpointKey(realmId), cp);
        await batch.commit();
        batch = new BulkBatch(shard.store);
        inBatch = 0;
      }
    }
    progress.tick(n + 1);
  }

  // Read state: marks, flips and subscription intervals.
  const nextId = cp.bases.message + p.messageOrder.length + 1;
  const subsOf = new Map<number, number[]>();
  const subs = buildSubscriptions(p, ids);
  for (const sub of subs.active) subsOf.set(sub.userId, [...(subsOf.get(sub.userId) ?? []), sub.streamId]);
  const readMarks = new Map<number, number>();
  const intervals = new Map<number, Map<number, SubInterval[]>>();
  const flips: [number, number[]][] = [];
  for (const [userId, s] of readState.users((u) => subsOf.get(u) ?? [], nextId)) {
    readMarks.set(userId, s.mark);
    intervals.set(userId, s.intervals);
    if (s.flips.length > 0) flips.push([userId, s.flips]);
  }
  for (const u of users) {
    if (readState.has(u.id)) continue;
    // No UserMessage rows (a bot, someone whose rows a consent export left out): all read.
    readMarks.set(u.id, nextId - 1);
    const own = new Map<number, SubInterval[]>();
    for (const streamId of subsOf.get(u.id) ?? []) own.set(streamId, [[nextId, null]]);
    if (own.size > 0) intervals.set(u.id, own);
  }
  if (!cp.flipsDone) {
    progress.phase('read state', flips.length);
    batch = new BulkBatch(shard.store);
    let pending = 0;
    for (let i = 0; i < flips.length; i++) {
      const [userId, list] = flips[i];
      for (const id of list) {
        const before = storedBits(shard, state, userId, id);
        writeBits(shard, batch, state, userId, id, before, (before & ~READ_FLIP) | READ_FLIP);
        if (++pending >= 50_000) {
          await batch.commit();
          batch = new BulkBatch(shard.store);
          pending = 0;
        }
      }
      progress.tick(i + 1);
    }
    cp = { ...cp, flipsDone: true };
    batch.put(shard.store.meta, checkpointKey(realmId), cp);
    await batch.commit();
  }

  progress.phase('organization', 1);
  const first = readState.firstMessages();
  for (const s of streams) s.firstMessageId = first.get(s.id) ?? null;
  for (const u of users) if (u.avatarKey && !avatars.has(u.id)) delete u.avatarKey;
  const org: Organization = {
    realm: realmRecord,
    groups,
    users,
    streams,
    subs,
    people,
    readMarks,
    intervals,
    attachments: attachmentRecords(p, ids, realmId, uploads, linkDates, now),
    avatars,
    emojiImages: emojiBytes,
    realmImages: await realmImages(p),
  };
  const last = shard.batch();
  writeOrganization(shard, last, org);
  last.del(shard.store.meta, checkpointKey(realmId));
  await last.commit();
  shard.addRealm(realmStateOf(new RealmState(realmRecord), org));
  progress.tick(1);
  const humans = users.filter((u) => !u.isBot && u.isActive);
  return {
    realmId,
    users: users.filter((u) => !u.isSystemBot).length,
    messages: p.messageOrder.length,
    passwordsKept: humans.filter((u) => u.passwordHash !== null).length,
    needPasswordReset: humans.filter((u) => u.passwordHash === null).map((u) => u.email),
  };
}
