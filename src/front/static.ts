import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context, Next } from 'koa';
import { projectRoot } from '../lib/config.js';
import { EMOJI_API_PATH } from '../markdown/emoji-url.js';
import { noteRoute } from './request-log.js';

/**
 * Files served outside /api/v1 that are the same for every realm and need no credentials. Each
 * is built on first request, in the front end, since no shard state is involved.
 */
interface StaticFile {
  type: string;
  /** Seconds a client may use it without asking again. */
  maxAge: number;
  load(): { body: string | Buffer; etag: string } | Promise<{ body: string | Buffer; etag: string }>;
}

// A 1×1 mid-grey PNG: the avatar the "Unknown user" placeholders point at (users/views.ts
// inaccessibleUserView). Clients scale it to whatever size they draw avatars.
const UNKNOWN_AVATAR = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR42mM4AQAAygDJNEIn8wAAAABJRU5ErkJggg==', 'base64');

/** A file of assets/ (its README says what each is and where it comes from), read once. */
function asset(name: string): StaticFile['load'] {
  let loaded: { body: Buffer; etag: string } | null = null;
  return () => {
    if (!loaded) {
      const body = readFileSync(join(projectRoot, 'assets/images', name));
      loaded = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` };
    }
    return loaded;
  };
}

const FILES: Record<string, StaticFile> = {
  // The emoji name table the mobile app's picker downloads once and then revalidates. A day,
  // since an upgrade may change it and the URL carries no version.
  // The tables load on the first request: the main thread has no other use for them.
  [EMOJI_API_PATH]: { type: 'application/json', maxAge: 86400, load: async () => (await import('../markdown/emoji.js')).emojiApiFile() },
  '/static/images/unknown-user-avatar.png': { type: 'image/png', maxAge: 86400 * 30, load: () => ({ body: UNKNOWN_AVATAR, etag: '"unknown-user-avatar-1"' }) },
  // The default organization icon and logo (model/realm-settings.ts realmImageUrl) and the
  // :zulip: emoji (markdown/patterns.ts, api/messages/reactions.ts), at the reference's URLs.
  '/static/images/logo/zulip-icon-128x128.png': { type: 'image/png', maxAge: 86400, load: asset('stoa-icon-128.png') },
  '/static/images/logo/zulip-org-logo.svg': { type: 'image/svg+xml', maxAge: 86400, load: asset('stoa-logo.svg') },
  '/static/generated/emoji/images/emoji/unicode/zulip.png': { type: 'image/png', maxAge: 86400, load: asset('stoa-emoji-64.png') },
};

export async function staticFiles(ctx: Context, next: Next): Promise<void> {
  const file = FILES[ctx.path];
  if (!file || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
  noteRoute(ctx.req, ctx.path);
  const { body, etag } = await file.load();
  ctx.status = 200;
  ctx.type = file.type;
  ctx.etag = etag;
  ctx.set('Cache-Control', `public, max-age=${file.maxAge}`);
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = body;
}
