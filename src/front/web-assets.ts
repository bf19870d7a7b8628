import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Next } from 'koa';

/**
 * The web app's files, as `npm run build` left them in dist/web (src/build/web.ts): index.html,
 * content-hashed scripts and styles with their gzip and brotli twins, the favicon. Read into
 * memory on the first request (about 100 KB compressed, so no disk read or compression per
 * request), served with the compressed form the browser accepts.
 *
 * `/` is a page route (sessions.app): the realm's shard checks the session, and this module
 * sends the app's page (serveApp) only for a live one; anyone else goes to the login page
 * without loading the app.
 */
export const WEB_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');
export const ASSET_PREFIX = '/static/web/';

interface Asset {
  type: string;
  raw: Buffer;
  gz?: Buffer;
  br?: Buffer;
  etag: string;
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.json': 'application/json',
  '.map': 'application/json',
};

/**
 * No script but the app's own files; message HTML is inserted as the server rendered it, so a
 * renderer bug cannot become script execution. Style attributes are allowed (KaTeX sizes its
 * boxes with them), style elements only from our files. Images come from this server only: the
 * app asks for client_gravatar and draws an initial for anyone without an uploaded avatar, and
 * a preview of an image elsewhere (which /thumbnail redirects to) is not loaded, so opening the
 * app tells no other host who is reading what. No framing (clickjacking), no plugins, no <base>.
 */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src-elem 'self'",
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

const PAGE_HEADERS = {
  'content-security-policy': CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-cache',
};

let assets: Map<string, Asset> | null = null;

function load(): Map<string, Asset> {
  const map = new Map<string, Asset>();
  if (!existsSync(WEB_ROOT)) return map;
  const read = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      if (name.endsWith('.gz') || name.endsWith('.br')) continue;
      const file = join(dir, name);
      const ext = name.slice(name.lastIndexOf('.'));
      const type = TYPES[ext];
      if (!type) continue;
      const raw = readFileSync(file);
      const twin = (suffix: string) => (existsSync(file + suffix) ? readFileSync(file + suffix) : undefined);
      // A hashed name (app-3f9a1c2b.js) never changes content: cached for a year.
      const hashed = /-[0-9A-Z]{8}\.\w+$/.test(name);
      map.set(prefix + name, { type, raw, gz: twin('.gz'), br: twin('.br'), etag: `"${raw.length.toString(16)}-${name}"`, immutable: hashed });
    }
  };
  read(WEB_ROOT, ASSET_PREFIX);
  return map;
}

function serve(ctx: Context, asset: Asset, headers: Record<string, string> = {}): void {
  ctx.status = 200;
  ctx.set(headers);
  ctx.type = asset.type;
  ctx.etag = asset.etag;
  ctx.vary('Accept-Encoding');
  if (!headers['cache-control']) ctx.set('Cache-Control', asset.immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  // Brotli whenever it is accepted at all (it is smaller), whatever order the header lists.
  const enc = asset.br && ctx.acceptsEncodings('br') === 'br' ? 'br' : asset.gz && ctx.acceptsEncodings('gzip') === 'gzip' ? 'gzip' : null;
  if (enc) ctx.set('Content-Encoding', enc);
  ctx.body = enc === 'br' ? asset.br : enc === 'gzip' ? asset.gz : asset.raw;
}

const NOT_BUILT = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Stoa</title></head><body><h1>The web app is not built</h1><p>Run <code>npm run build</code> and restart the server.</p></body></html>\n`;

/** The app's page, for a request whose session the shard found alive (front/pages.ts). */
export function serveApp(ctx: Context): void {
  assets ??= load();
  const index = assets.get(`${ASSET_PREFIX}index.html`);
  if (!index) {
    ctx.status = 503;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = NOT_BUILT;
    return;
  }
  serve(ctx, index, PAGE_HEADERS);
}

export async function webAssets(ctx: Context, next: Next): Promise<void> {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
  const path = ctx.path;
  if (path !== '/favicon.ico' && !path.startsWith(ASSET_PREFIX)) return next();
  assets ??= load();
  const asset = path === '/favicon.ico' ? assets.get(`${ASSET_PREFIX}favicon.png`) : assets.get(path);
  if (!asset || path.endsWith('index.html')) return next();
  serve(ctx, asset, path === '/favicon.ico' ? { 'cache-control': 'public, max-age=86400' } : {});
}
