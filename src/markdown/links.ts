/**
 * URL handling shared by the renderer: which URLs may become links, the reference's web-link
 * detector, and the narrow-URL encoding the reference uses for channel and topic links.
 */
import { lazyRequire } from './lazy.js';

/** Schemes a link may use: http(s), ftp, file, and the HTML spec's safelisted schemes. */
const ALLOWED_SCHEMES = new Set([
  'http', 'https', 'ftp', 'file', 'bitcoin', 'geo', 'im', 'irc', 'ircs', 'magnet', 'mailto',
  'matrix', 'mms', 'news', 'nntp', 'openpgp4fpr', 'sip', 'sms', 'smsto', 'ssh', 'tel', 'urn',
  'webcal', 'wtai', 'xmpp',
]);

interface SplitUrl {
  scheme: string;
  netloc: string;
  path: string;
  query: string | undefined;
  fragment: string | undefined;
}

/** A small urlsplit: scheme, //netloc, path, ?query, #fragment. */
function splitUrl(url: string): SplitUrl {
  let rest = url;
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1].toLowerCase();
    rest = rest.slice(m[0].length);
  }
  let fragment: string | undefined;
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let query: string | undefined;
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let netloc = '';
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    netloc = end < 0 ? rest.slice(2) : rest.slice(2, end);
    rest = end < 0 ? '' : rest.slice(end);
  }
  return { scheme, netloc, path: rest, query, fragment };
}

/**
 * The href a link may carry, or null when the URL must stay plain text. Scheme-less URLs get
 * http://, domain-relative and fragment links are kept, and only known-safe schemes pass, so
 * javascript:, data: and the like never become links.
 */
export function sanitizeUrl(url: string): string | null {
  const spaced = url.replace(/ /g, '%20');
  const parts = splitUrl(spaced);
  if (parts.scheme === '' && parts.netloc === '') {
    if (parts.path.includes('@')) return 'mailto:' + spaced;
    if (parts.path.startsWith('/')) return spaced;
    if (parts.path === '' && parts.query === undefined && parts.fragment) return '#' + parts.fragment;
  }
  if (parts.scheme === '') return sanitizeUrl('http://' + url);
  if (!ALLOWED_SCHEMES.has(parts.scheme)) return null;
  return parts.scheme + spaced.slice(parts.scheme.length);
}

/** Links into this realm's web app or uploads become relative, as the reference renders them. */
export function relativizeLocalLink(href: string, realmUrl: string): string {
  const prefix = realmUrl.replace(/\/+$/, '') + '/';
  if (href.startsWith(prefix + '#') || href.startsWith(prefix + 'user_uploads/')) {
    return href.slice(prefix.length);
  }
  return href;
}

/** The reference's hash-component encoding: percent-encode everything, then "%" becomes ".". */
export function hashEncode(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/\./g, '%2E')
    .replace(/%/g, '.');
}

export function encodeChannel(id: number, name: string): string {
  return `${id}-${hashEncode(name.replace(/ /g, '-'))}`;
}

const IMAGE_EXTENSIONS = ['.bmp', '.gif', '.jpe', '.jpeg', '.jpg', '.png', '.webp'];
const VIDEO_EXTENSIONS = ['.mp4', '.m4v', '.webm'];

function urlPath(url: string): { host: string; path: string } {
  const parts = splitUrl(url);
  return { host: parts.netloc.toLowerCase(), path: parts.path.toLowerCase() };
}

export function isImageUrl(url: string): boolean {
  const { host, path } = urlPath(url);
  if (host === 'pasteboard.co') return false;
  return IMAGE_EXTENSIONS.some((ext) => path.endsWith(ext));
}

export function isVideoUrl(url: string): boolean {
  const { path } = urlPath(url);
  return VIDEO_EXTENSIONS.some((ext) => path.endsWith(ext));
}

/** The upload path id when the URL is a file uploaded to this realm, else undefined. */
export function uploadPathId(url: string, realmUrl: string): string | undefined {
  let local = url;
  const base = realmUrl.replace(/\/+$/, '');
  if (local.startsWith(base + '/')) local = local.slice(base.length);
  if (local.startsWith('user_uploads/')) local = '/' + local;
  return local.startsWith('/user_uploads/') ? local.slice('/user_uploads/'.length).split(/[?#]/)[0] : undefined;
}

// Python's \w is Unicode-aware; so is this.
const W = String.raw`[\p{L}\p{N}\p{M}_]`;

let webLink: RegExp | undefined;

/**
 * The reference's web-link detector: an http(s) URL, or a bare domain ending in a known TLD,
 * with an optional path holding up to six levels of balanced parentheses; or an email address;
 * or a bitcoin address. It starts after whitespace or one of '"(,:< and must be followed by
 * optional punctuation and then whitespace or the end.
 */
export function webLinkRegex(): RegExp {
  if (webLink) return webLink;
  const falsePositives = new Set(['java', 'md', 'mov', 'py', 'zip']);
  const tlds = lazyRequire<string[]>('tlds')
    .filter((tld) => !falsePositives.has(tld))
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
    .map((tld) => tld.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|');
  const inner = String.raw`[^\s()"]*`;
  const group = String.raw`[^\s()"]*?(?:\(%s\)[^\s()"]*?)*`;
  let nested = group;
  for (let i = 0; i < 6; i++) nested = nested.replace('%s', group);
  nested = nested.replace('%s', inner);
  const source =
    String.raw`(?<![^\s'"(,:<])(?<url>(?:(?:https?://[\p{L}\p{N}\p{M}_.:@-]+?|(?:(?:${W}|-)+\.)+(?:${tlds}))(?:/${nested})?)` +
    String.raw`|(?:(?:${W}|[.-])+@(?:${W}|[.-])+\.${W}+)` +
    String.raw`|(?:bitcoin:[13][a-km-zA-HJ-NP-Z1-9]{25,34}))(?=[!:;?),.'">]*(?:$|\s))`;
  webLink = new RegExp(source, 'gu');
  return webLink;
}
