import { ApiError, badRequest, unauthorized } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Reply } from '../../api-kit/operation.js';
import type { Shard } from '../../shard/shard.js';
import { attachmentByPath, deleteAttachment, getAttachment, insertAttachment, MAX_FILE_UPLOAD_BYTES, MAX_FILE_UPLOAD_SIZE_MIB, ownedAttachmentIds, uploadSpaceUsed, type AttachmentRecord } from '../../store/uploads.js';
import { me, operation } from '../../api-kit/operation.js';
import { attachmentView, mayAccessAttachment } from '../messages/attachments.js';
import { checkTmpPath, contentTypeFor, fileHeaders, newPathId, pathIdFromToken, placeUpload, removeUpload, sanitizeName, temporaryUrl, uploadPath, uploadUrl } from './files.js';

/** A file of a multipart request, as the front end saved it (front/body.ts). */
export interface UploadedFile {
  field: string;
  filename: string;
  tmpPath: string;
  size: number;
  contentType: string;
}

const fileSchema = {
  type: 'object',
  properties: { field: { type: 'string' }, filename: { type: 'string' }, tmpPath: { type: 'string' }, size: { type: 'integer' }, contentType: { type: 'string' } },
  required: ['filename', 'tmpPath', 'size'],
};

export async function doUpload(shard: Shard, realm: RealmState, owner: UserRecord, file: UploadedFile): Promise<AttachmentRecord> {
  const tmpPath = checkTmpPath(shard.config.dataDir, file.tmpPath);
  // The reference keeps the name as sent (URL-unescaped, NUL bytes dropped) and puts a
  // sanitised copy in the path.
  let name = file.filename.replace(/\0/g, '');
  try {
    name = decodeURIComponent(name);
  } catch {
    // Not an escaped name: kept as it is.
  }
  if (name === '') name = 'uploaded-file';
  const pathId = newPathId(realm.id, sanitizeName(name));
  await placeUpload(shard.config.dataDir, tmpPath, pathId);
  const batch = shard.batch();
  const rec: AttachmentRecord = {
    id: shard.allocate(batch, 'attachment'),
    realmId: realm.id,
    ownerId: owner.id,
    name,
    pathId,
    size: file.size,
    contentType: contentTypeFor(name, file.contentType),
    createTime: Date.now(),
    messages: [],
  };
  insertAttachment(shard, batch, rec);
  batch.emit(realm.id, { type: 'attachment', op: 'add', attachment: attachmentView(rec), upload_space_used: uploadSpaceUsed(shard, realm.id) }, [owner.id]);
  await batch.commit();
  return rec;
}

/** POST /user_uploads: one file, in a multipart body. */
const upload = operation<{ __files?: UploadedFile[] }>({
  auth: 'user',
  params: { properties: { __files: { type: 'array', items: fileSchema } } },
  handler: async (ctx) => {
    const files = ctx.params.__files ?? [];
    if (files.length === 0) throw badRequest('You must specify a file to upload');
    if (files.length > 1) throw badRequest('You may only upload one file at a time');
    // The front end refuses larger files while they stream; this guards the shard on its own.
    if (files[0].size > MAX_FILE_UPLOAD_BYTES) throw badRequest(`File is larger than this server's configured maximum upload size (${MAX_FILE_UPLOAD_SIZE_MIB} MiB).`);
    const rec = await doUpload(ctx.shard, ctx.realm, me(ctx), files[0]);
    const url = uploadUrl(rec.pathId);
    return { uri: url, url, filename: rec.name };
  },
});

const notFound = () => new ApiError('This file does not exist or has been deleted.', { status: 404 });
const forbidden = () => new ApiError('You are not authorized to view this file.', { status: 403 });

function fileReply(shard: Shard, rec: AttachmentRecord, forceDownload: boolean): { __reply: Reply } {
  return {
    __reply: {
      status: 200,
      body: '',
      headers: fileHeaders(rec.name, rec.contentType, rec.size, forceDownload),
      file: { path: uploadPath(shard.config.dataDir, rec.pathId), contentType: rec.contentType },
    },
  };
}

function authorizedAttachment(shard: Shard, realm: RealmState, user: UserRecord | null, pathId: string): AttachmentRecord {
  const rec = attachmentByPath(shard, realm.id, pathId);
  if (!rec) throw notFound();
  if (!user) throw unauthorized();
  if (!mayAccessAttachment(shard, realm, user, rec)) throw forbidden();
  return rec;
}

/**
 * GET /api/v1/user_uploads/{realm_id_str}/{filename}: a temporary URL for the file (the
 * reference's serve_file_url_backend). The front end also routes the site paths message links
 * use to this operation, with `__serve` set (a parameter clients cannot send): then the answer
 * is the file itself, for /user_uploads/<path id> (HTTP Basic), /user_uploads/download/<path id>
 * (the same, as an attachment) and /user_uploads/temporary/<token>/<name> (no credentials).
 */
const file = operation<{ realm_id_str: string; filename: string; __serve?: 'file' }>({
  auth: 'optional',
  params: {
    properties: { realm_id_str: { type: 'string' }, filename: { type: 'string' }, __serve: { enum: ['file'] } },
    required: ['realm_id_str', 'filename'],
  },
  handler: (ctx) => {
    const { shard, realm, user, params: p } = ctx;
    if (p.__serve === 'file' && p.realm_id_str === 'temporary') {
      const [token, name, ...rest] = p.filename.split('/');
      const pathId = rest.length === 0 && name ? pathIdFromToken(token) : null;
      if (pathId === null) throw badRequest('Invalid token');
      if (pathId.split('/').pop() !== name) throw badRequest('Invalid filename');
      const rec = attachmentByPath(shard, realm.id, pathId);
      if (!rec) throw badRequest('Invalid token');
      return fileReply(shard, rec, false);
    }
    if (p.__serve === 'file' && p.realm_id_str === 'download') {
      return fileReply(shard, authorizedAttachment(shard, realm, user, p.filename), true);
    }
    const rec = authorizedAttachment(shard, realm, user, `${p.realm_id_str}/${p.filename}`);
    return p.__serve === 'file' ? fileReply(shard, rec, false) : { url: temporaryUrl(rec.pathId) };
  },
});

/** GET /attachments: the user's uploads, oldest first, and the realm's upload_space_used. */
const list = operation({
  auth: 'user',
  handler: (ctx) => {
    const user = me(ctx);
    const recs = ownedAttachmentIds(ctx.shard, ctx.realm.id, user.id)
      .map((id) => getAttachment(ctx.shard, ctx.realm.id, id))
      .filter((rec): rec is AttachmentRecord => rec !== undefined);
    return { attachments: recs.map(attachmentView), upload_space_used: uploadSpaceUsed(ctx.shard, ctx.realm.id) };
  },
});

/** DELETE /attachments/{attachment_id}: only the uploader's own files. */
const remove = operation<{ attachment_id: number }>({
  auth: 'user',
  params: { properties: { attachment_id: { type: 'integer' } }, required: ['attachment_id'] },
  handler: async (ctx) => {
    const user = me(ctx);
    const { shard, realm } = ctx;
    const rec = getAttachment(shard, realm.id, ctx.params.attachment_id);
    if (!rec || rec.ownerId !== user.id) throw badRequest('Invalid attachment');
    const batch = shard.batch();
    deleteAttachment(shard, batch, rec);
    batch.emit(realm.id, { type: 'attachment', op: 'remove', attachment: { id: rec.id }, upload_space_used: uploadSpaceUsed(shard, realm.id) }, [user.id]);
    await batch.commit();
    await removeUpload(shard.config.dataDir, rec.pathId);
    return {};
  },
});

export const operations = {
  'uploads.upload': upload,
  'uploads.file': file,
  'attachments.list': list,
  'attachments.remove': remove,
};
