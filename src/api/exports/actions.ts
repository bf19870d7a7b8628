import { badRequest } from '../../lib/errors.js';
import { log } from '../../lib/log.js';
import type { RealmState } from '../../model/realm-state.js';
import { ROLE, type UserRecord } from '../../model/types.js';
import { defineJobKind, jobsOf, type JobRun } from '../../shard/jobs.js';
import type { Shard } from '../../shard/shard.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { userSetting } from '../../model/user-settings.js';
import { notificationBot } from '../messages/notices.js';
import { doSendMessage } from '../messages/send.js';
import { humanAdminIds } from '../users/export-consent.js';
import { buildArchive, consentingUsers, EXPORT_PUBLIC, EXPORT_STANDARD, removeArchive, selectContent } from './archive.js';

/**
 * Data exports of an organization, after the reference's zerver/views/realm_export.py and its
 * deferred_work worker. A request writes the export's record and a durable job in one
 * transaction (shard/jobs.ts); the job builds the archive (archive.ts), then marks the record
 * succeeded and tells the requester through the Notification Bot, in the transaction that
 * removes the job. A crash while the archive is written leaves the job, which starts over on
 * the next start; a failure after the job's last attempt marks the export failed.
 *
 * Every change sends the whole list to the organization's administrators (realm_export), as
 * the reference's notify_realm_export does.
 */

export type ExportStatus = 'requested' | 'succeeded' | 'failed' | 'deleted';

export interface RealmExportRecord {
  id: number;
  actingUserId: number;
  type: number;
  status: ExportStatus;
  /** Seconds, with a fraction, as the reference's timestamps. */
  requestedAt: number;
  failedAt: number | null;
  deletedAt: number | null;
  /** `<secret>/<file name>` below archive.ts's exportsDir, once built. */
  path: string | null;
  size: number | null;
}

/** The reference's limits: five exports a week, and larger organizations exported by hand. */
export const EXPORT_LIMIT = 5;
const LIMIT_WINDOW_SECONDS = 7 * 86_400;
export const MAX_MESSAGE_HISTORY = 250_000;

const JOB_KIND = 'realmExport';
const jobKey = (realmId: number, id: number) => `${JOB_KIND}:${realmId}:${id}`;
const rowKey = (realmId: number, id: number) => [realmId, id];

export function realmExports(shard: Shard, realm: RealmState): RealmExportRecord[] {
  const rows = [...shard.store.exports.getRange({ start: [realm.id], end: [realm.id + 1] })].map((e) => e.value as RealmExportRecord);
  // A row changed and not yet committed is seen as the change leaves it.
  return rows.map((r) => shard.read<RealmExportRecord>(shard.store.exports, rowKey(realm.id, r.id)) ?? r);
}

export function realmExport(shard: Shard, realm: RealmState, id: number): RealmExportRecord | undefined {
  return shard.read<RealmExportRecord>(shard.store.exports, rowKey(realm.id, id));
}

/** The reference's RealmExport as the API shows it. */
export function exportView(realm: RealmState, e: RealmExportRecord): Record<string, unknown> {
  return {
    id: e.id,
    export_time: e.requestedAt,
    acting_user_id: e.actingUserId,
    export_url: e.status === 'succeeded' && e.path ? `${realm.url}/user_avatars/exports/${realm.id}/${e.path}` : null,
    deleted_timestamp: e.deletedAt,
    failed_timestamp: e.failedAt,
    pending: e.status === 'requested',
    export_type: e.type,
  };
}

/** realm_export to the administrators, with the list as `batch` leaves it. */
function notify(shard: Shard, realm: RealmState, batch: WriteBatch, changed: RealmExportRecord): void {
  const list = realmExports(shard, realm).filter((e) => e.id !== changed.id);
  list.push(changed);
  list.sort((a, b) => a.id - b.id);
  batch.emit(realm.id, { type: 'realm_export', exports: list.map((e) => exportView(realm, e)) }, humanAdminIds(realm));
}

function save(shard: Shard, realm: RealmState, batch: WriteBatch, e: RealmExportRecord): void {
  batch.put(shard.store.exports, rowKey(realm.id, e.id), e);
  notify(shard, realm, batch, e);
}

export function checkExport(shard: Shard, realm: RealmState, type: number): void {
  const since = Date.now() / 1000 - LIMIT_WINDOW_SECONDS;
  if (realmExports(shard, realm).filter((e) => e.requestedAt >= since).length >= EXPORT_LIMIT) throw badRequest('Exceeded rate limit.');
  const support = shard.config.email.from ?? 'the server administrator';
  const owners = [...realm.activeUsers()].filter((u) => u.role === ROLE.owner && !u.isBot);
  if (selectContent(shard, realm, type).messageIds.length > MAX_MESSAGE_HISTORY) {
    throw badRequest(`Please request a manual export from ${support}.`);
  }
  if (type === EXPORT_STANDARD && !owners.some((u) => consentingUsers(realm).includes(u))) {
    throw badRequest(`Make sure at least one Organization Owner is consenting to the export or contact ${support} for help.`);
  }
  // A public export lists an address nobody may see under a placeholder; an organization whose
  // owners all hide theirs would import with no owner able to log in.
  if (type === EXPORT_PUBLIC && !owners.some((u) => userSetting(u, 'email_address_visibility') !== 4)) {
    throw badRequest(`Make sure at least one Organization Owner allows other Administrators to see their email address or contact ${support} for help`);
  }
}

export async function doCreateExport(shard: Shard, realm: RealmState, user: UserRecord, type: number): Promise<number> {
  const batch = shard.batch();
  const e: RealmExportRecord = { id: shard.allocate(batch, 'realmExport'), actingUserId: user.id, type, status: 'requested', requestedAt: Date.now() / 1000, failedAt: null, deletedAt: null, path: null, size: null };
  save(shard, realm, batch, e);
  jobsOf(shard).schedule(batch, { key: jobKey(realm.id, e.id), kind: JOB_KIND, realmId: realm.id, due: Date.now(), data: { id: e.id } });
  await batch.commit();
  return e.id;
}

export function checkDeleteExport(e: RealmExportRecord | undefined): asserts e is RealmExportRecord {
  if (!e) throw badRequest('Invalid data export ID');
  if (e.status === 'deleted') throw badRequest('Export already deleted');
  if (e.status === 'failed') throw badRequest('Export failed, nothing to delete');
  if (e.status === 'requested') throw badRequest('Export still in progress');
}

export async function doDeleteExport(shard: Shard, realm: RealmState, e: RealmExportRecord): Promise<void> {
  const batch = shard.batch();
  save(shard, realm, batch, { ...e, status: 'deleted', deletedAt: Date.now() / 1000 });
  await batch.commit();
  // After the commit: a crash before it leaves the file for a record that still offers it.
  if (e.path) await removeArchive(shard.config.dataDir, realm.id, e.path).catch((err) => log.warn({ err, realm: realm.id, export: e.id }, 'an export file could not be removed'));
}

async function run({ shard, job, batch }: JobRun<{ id: number }>): Promise<void> {
  const realm = shard.realm(job.realmId);
  const e = realm && realmExport(shard, realm, job.data.id);
  // Deleted with its realm, or finished by an earlier run whose job removal this one repeats.
  if (!realm || !e || e.status !== 'requested') return;
  const built = await buildArchive(shard, realm, e.type, e.id);
  const current = realmExport(shard, realm, e.id) ?? e;
  save(shard, realm, batch, { ...current, status: 'succeeded', path: built.path, size: built.size });
  const requester = realm.users.get(e.actingUserId);
  if (requester?.isActive) {
    const bot = await notificationBot(shard, realm);
    const content = 'Your data export is complete. [View and download exports](/#organization/data-exports-admin).';
    await doSendMessage(shard, realm, { sender: bot, content, client: 'Internal', readBySender: false, recipients: [requester], batch });
  }
}

defineJobKind<{ id: number }>(JOB_KIND, {
  maxAttempts: 3,
  run,
  exhausted: ({ shard, job, batch }) => {
    const realm = shard.realm(job.realmId);
    const e = realm && realmExport(shard, realm, job.data.id);
    if (!realm || !e || e.status !== 'requested') return;
    log.error({ realm: realm.id, export: e.id }, 'a data export failed');
    save(shard, realm, batch, { ...e, status: 'failed', failedAt: Date.now() / 1000 });
  },
});
