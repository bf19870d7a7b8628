import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, open, rename, rmdir, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { badRequest } from '../../lib/errors.js';
import { uploadsDir, uploadsTmpDir } from '../../store/uploads.js';

/**
 * The uploaded files on disk, their names and URLs. The front end streams an upload to a
 * temporary file (front/body.ts); the shard moves it to <dataDir>/uploads/<pathId> and makes the
 * move durable before the attachment record commits, so an acknowledged upload survives a crash.
 */

const MAX_NAME_BYTES = 255;

/** The longest prefix of `s` within `max` UTF-8 bytes, never cutting a character. */
function cutBytes(s: string, max: number): string {
  let out = '';
  let bytes = 0;
  for (const ch of s) {
    bytes += Buffer.byteLength(ch);
    if (bytes > max) break;
    out += ch;
  }
  return out;
}

/**
 * A file name safe on disk and in a URL, as the reference makes it: NFKC-normalised, keeping
 * letters, digits, "_", ".", "-" and whitespace, runs of whitespace and "-" folded into one "-",
 * at most 255 bytes with the extension kept, and "uploaded-file" when nothing is left.
 */
export function sanitizeName(raw: string): string {
  let value = raw.normalize('NFKC').replace(/[^\p{L}\p{N}\p{M}_\s.-]/gu, '').trim();
  value = value.replace(/[-\s]+/g, '-');
  if (Buffer.byteLength(value) > MAX_NAME_BYTES) {
    const dot = value.lastIndexOf('.');
    const ext = dot > 0 ? value.slice(dot) : '';
    value = Buffer.byteLength(ext) >= MAX_NAME_BYTES ? cutBytes(value, MAX_NAME_BYTES) : cutBytes(value.slice(0, value.length - ext.length), MAX_NAME_BYTES - Buffer.byteLength(ext)) + ext;
  }
  return value === '' || value === '.' || value === '..' ? 'uploaded-file' : value;
}

/** `<realmId>/<2 hex digits>/<24 random URL-safe characters>/<name>`, the reference's shape. */
export function newPathId(realmId: number, sanitized: string): string {
  return `${realmId}/${randomBytes(1).toString('hex')}/${randomBytes(18).toString('base64url')}/${sanitized}`;
}

export function uploadUrl(pathId: string): string {
  return `/user_uploads/${pathId}`;
}

/** The file of a stored path id. Path ids are made here, never taken from a request. */
export function uploadPath(dataDir: string, pathId: string): string {
  return join(uploadsDir(dataDir), ...pathId.split('/'));
}

/** The front end names its temporary files with hex only; anything else did not come from it. */
export function checkTmpPath(dataDir: string, tmpPath: string): string {
  const tmpDir = resolve(uploadsTmpDir(dataDir));
  const full = resolve(tmpPath);
  if (dirname(full) !== tmpDir || !/^[0-9a-f]{32}$/.test(relative(tmpDir, full))) throw badRequest('Invalid upload');
  return full;
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Moves a temporary upload (already fsynced by the front end) to its place: a rename within the
 * data directory, then an fsync of each directory the new path added an entry to (the file's,
 * and the two made for it when new), so the file is there after a crash.
 */
export async function placeUpload(dataDir: string, tmpPath: string, pathId: string): Promise<void> {
  const dest = uploadPath(dataDir, pathId);
  await mkdir(dirname(dest), { recursive: true });
  await rename(checkTmpPath(dataDir, tmpPath), dest);
  let dir = dirname(dest);
  for (let i = 0; i < 3; i++, dir = dirname(dir)) await syncDir(dir);
}

/** Deletes a stored file and the two directories made for it alone. */
export async function removeUpload(dataDir: string, pathId: string): Promise<void> {
  const file = uploadPath(dataDir, pathId);
  await unlink(file).catch(() => undefined);
  const randomDir = dirname(file);
  await rmdir(randomDir).catch(() => undefined);
  // The two-hex-digit directory is shared by other uploads; it goes only when empty.
  await rmdir(dirname(randomDir)).catch(() => undefined);
}

const TYPES: Record<string, string> = {
  txt: 'text/plain', md: 'text/markdown', csv: 'text/csv', html: 'text/html', htm: 'text/html', json: 'application/json', xml: 'application/xml',
  pdf: 'application/pdf', zip: 'application/zip', gz: 'application/gzip', tar: 'application/x-tar',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif', apng: 'image/apng', svg: 'image/svg+xml', bmp: 'image/bmp', ico: 'image/vnd.microsoft.icon',
  mp3: 'audio/mpeg', m4a: 'audio/mp4', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', ogg: 'audio/ogg', oga: 'audio/ogg', opus: 'audio/ogg',
  mp4: 'video/mp4', m4v: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime', ogv: 'video/ogg',
  doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint', pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text', ods: 'application/vnd.oasis.opendocument.spreadsheet',
};

/**
 * The content type to store: the one the client sent, unless it is missing or the generic
 * octet-stream, then a guess from the extension (as the reference does when the type is empty).
 */
export function contentTypeFor(name: string, sent: string | undefined): string {
  const given = (sent ?? '').trim();
  if (given && given.toLowerCase() !== 'application/octet-stream') return given;
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1].toLowerCase();
  return (ext && TYPES[ext]) || 'application/octet-stream';
}

/**
 * Types a browser may show in place. Anything else is served as an attachment, so an uploaded
 * HTML or SVG file never runs as a page of this site.
 */
const INLINE = new Set([
  'application/pdf',
  'audio/aac', 'audio/flac', 'audio/mp4', 'audio/mpeg', 'audio/ogg', 'audio/wav', 'audio/webm',
  'image/apng', 'image/avif', 'image/gif', 'image/jpeg', 'image/png', 'image/webp',
  'text/plain',
  'video/mp4', 'video/ogg', 'video/webm',
]);

/** Headers of a served file: disposition (RFC 6266, RFC 8187 for non-ASCII names) and caching. */
export function fileHeaders(name: string, contentType: string, size: number, forceDownload: boolean): Record<string, string> {
  const bare = contentType.split(';')[0].trim().toLowerCase();
  const disposition = forceDownload || !INLINE.has(bare) ? 'attachment' : 'inline';
  const file = /^[\x20-\x7e]*$/.test(name) ? `filename="${name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `filename*=utf-8''${encodeURIComponent(name)}`;
  return {
    'Content-Disposition': `${disposition}; ${file}`,
    'Content-Length': String(size),
    'Cache-Control': 'private, immutable',
    'X-Content-Type-Options': 'nosniff',
  };
}

/**
 * Temporary URLs (/user_uploads/temporary/<token>/<name>) for clients that hand a file to
 * something without the user's credentials (the mobile apps' downloads). The token is the path
 * id and an expiry, signed with a key that lives as long as this shard thread: a restart only
 * shortens the life of links that last a minute anyway.
 */
const TOKEN_KEY = randomBytes(32);
export const TEMPORARY_URL_SECONDS = 60;

function sign(payload: string): Buffer {
  return createHmac('sha256', TOKEN_KEY).update(payload).digest();
}

export function temporaryUrl(pathId: string, now = Date.now()): string {
  const payload = `${pathId}:${Math.floor(now / 1000) + TEMPORARY_URL_SECONDS}`;
  const token = Buffer.from(`${payload}:${sign(payload).toString('base64url')}`).toString('hex').toUpperCase();
  return `/user_uploads/temporary/${token}/${pathId.split('/').pop()}`;
}

/** The path id a token grants, or null when it is forged, malformed or expired. */
export function pathIdFromToken(token: string, now = Date.now()): string | null {
  if (!/^(?:[0-9A-Fa-f]{2})+$/.test(token)) return null;
  const text = Buffer.from(token, 'hex').toString();
  const sigAt = text.lastIndexOf(':');
  const expAt = text.lastIndexOf(':', sigAt - 1);
  if (expAt <= 0) return null;
  const payload = text.slice(0, sigAt);
  const given = Buffer.from(text.slice(sigAt + 1), 'base64url');
  const expected = sign(payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (Number(text.slice(expAt + 1, sigAt)) < Math.floor(now / 1000)) return null;
  return text.slice(0, expAt);
}
