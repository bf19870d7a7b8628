import type { MessageRecord } from '../../model/message.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { getMessage } from '../../store/messages.js';
import type { WriteBatch } from '../../store/shard-store.js';
import { attachmentByPath, getAttachment, messageAttachmentIds, putAttachment, setMessageLink, uploadSpaceUsed, type AttachmentRecord } from '../../store/uploads.js';
import { canAccessMessage } from './access.js';

// A message's links to the uploads it names, kept with the messages that make and drop them
// (send, edit, move, delete); api/uploads/ lists and serves them from here.

/** The reference's Attachment object. */
export function attachmentView(rec: AttachmentRecord): Record<string, unknown> {
  return {
    id: rec.id,
    name: rec.name,
    path_id: rec.pathId,
    size: rec.size,
    create_time: rec.createTime,
    messages: rec.messages.map((m) => ({ id: m.id, date_sent: m.dateSent })),
  };
}

/**
 * Who may fetch a file, after the reference's validate_attachment_request: its uploader, and
 * anyone who can read one of the messages that link it.
 */
export function mayAccessAttachment(shard: Shard, realm: RealmState, user: UserRecord, rec: AttachmentRecord): boolean {
  if (rec.ownerId === user.id) return true;
  return rec.messages.some((m) => {
    const msg = getMessage(shard, realm, m.id);
    return msg !== undefined && canAccessMessage(realm, user, msg);
  });
}

// A link to an upload, relative or absolute: /user_uploads/<realm id>/<rest of the path id>.
const UPLOAD_LINK = /\/user_uploads\/(\d+\/[^\s()[\]<>"'?#]+)/g;

/** The path ids of this realm's uploads that a message's content links to. */
export function linkedPathIds(realm: RealmState, content: string): string[] {
  const out = new Set<string>();
  for (const match of content.matchAll(UPLOAD_LINK)) {
    let pathId = match[1];
    try {
      pathId = decodeURIComponent(pathId);
    } catch {
      // A malformed escape is kept as written: it then matches no stored path.
    }
    if (pathId.startsWith(`${realm.id}/`)) out.add(pathId);
  }
  return [...out];
}

export interface AttachmentLinks {
  /** Attachments whose list of messages changed (their owners get an attachment update). */
  changed: AttachmentRecord[];
  /** Of those, the ones no message links any more (an edit's `detached_uploads`, filtered by owner). */
  detached: AttachmentRecord[];
}

/**
 * Brings a message's attachment links in line with its content, for a send or an edit: the
 * uploads its content links (and that its sender may see: the reference will not let a link
 * share a file its sender cannot access) get the message in their list, and uploads it no longer
 * links lose it. Sets msg.hasAttachment, so call it before the message row is written. The rows
 * go to `batch`; before the commit, pass the result to notifyAttachments. `isNew`: the message is
 * being sent (it links nothing yet).
 */
export function linkAttachments(shard: Shard, batch: WriteBatch, realm: RealmState, msg: MessageRecord, isNew = false): AttachmentLinks {
  const sender = realm.users.get(msg.senderId);
  const wanted = new Map<number, AttachmentRecord>();
  for (const pathId of linkedPathIds(realm, msg.content)) {
    const rec = attachmentByPath(shard, realm.id, pathId);
    if (rec && sender && mayAccessAttachment(shard, realm, sender, rec)) wanted.set(rec.id, rec);
  }
  // A message being sent has no links yet: no range read for it (one per send, 6 % of a send's
  // time in the shard when profiled).
  const current = new Set(isNew ? [] : messageAttachmentIds(shard, realm.id, msg.id));
  const result: AttachmentLinks = { changed: [], detached: [] };
  for (const [id, rec] of wanted) {
    if (current.has(id) || rec.messages.some((m) => m.id === msg.id)) continue;
    const messages = [...rec.messages, { id: msg.id, dateSent: msg.timestamp * 1000 }].sort((a, b) => a.id - b.id);
    const updated = { ...rec, messages };
    putAttachment(shard, batch, updated);
    setMessageLink(shard, batch, realm.id, msg.id, id, true);
    result.changed.push(updated);
  }
  for (const id of current) {
    if (wanted.has(id)) continue;
    const unlinked = unlink(shard, batch, realm, msg.id, id);
    if (unlinked) result.changed.push(unlinked);
    if (unlinked && unlinked.messages.length === 0) result.detached.push(unlinked);
  }
  msg.hasAttachment = wanted.size > 0;
  return result;
}

function unlink(shard: Shard, batch: WriteBatch, realm: RealmState, msgId: number, attachmentId: number): AttachmentRecord | undefined {
  setMessageLink(shard, batch, realm.id, msgId, attachmentId, false);
  const rec = getAttachment(shard, realm.id, attachmentId);
  if (!rec) return undefined;
  const updated = { ...rec, messages: rec.messages.filter((m) => m.id !== msgId) };
  putAttachment(shard, batch, updated);
  return updated;
}

/** For a deleted message: its uploads forget it (the files stay with their owners). */
export function unlinkMessageAttachments(shard: Shard, batch: WriteBatch, realm: RealmState, msgId: number): AttachmentLinks {
  const result: AttachmentLinks = { changed: [], detached: [] };
  for (const id of messageAttachmentIds(shard, realm.id, msgId)) {
    const unlinked = unlink(shard, batch, realm, msgId, id);
    if (!unlinked) continue;
    result.changed.push(unlinked);
    if (unlinked.messages.length === 0) result.detached.push(unlinked);
  }
  return result;
}

/** After the commit: each changed attachment's owner gets the reference's attachment update. */
export function notifyAttachments(shard: Shard, batch: WriteBatch, realm: RealmState, links: AttachmentLinks): void {
  if (links.changed.length === 0) return;
  const space = uploadSpaceUsed(shard, realm.id);
  for (const rec of links.changed) {
    batch.emit(realm.id, { type: 'attachment', op: 'update', attachment: attachmentView(rec), upload_space_used: space }, [rec.ownerId]);
  }
}
