import { createRequire } from 'node:module';
import type * as Htmlparser2 from 'htmlparser2';
import { escapeAll as h } from '../../markdown/preprocess.js';

/**
 * A message's rendering, made fit for places outside the app: an email's HTML part (the
 * reference's relative_to_full_url, fix_emojis, fix_spoilers_in_html, change_katex_to_raw_latex
 * and convert_time_to_local_timezone, zerver/lib/email_notifications.py), and the plain text of a
 * mobile notification (get_mobile_push_content, zerver/lib/push_notifications.py).
 *
 * htmlparser2 parses the renderer's HTML into a tree; each output is a walk over it.
 */
let htmlparser2: typeof Htmlparser2 | undefined;
/**
 * htmlparser2 and its entity tables (about 0.9 MB of heap in a shard thread) load with the first
 * email or push notification written; required, not imported, so that these stay synchronous.
 */
const hp = () => (htmlparser2 ??= createRequire(import.meta.url)('htmlparser2') as typeof Htmlparser2);
const parseDocument = (html: string) => hp().parseDocument(html);

type Node = ReturnType<typeof Htmlparser2.parseDocument>['children'][number];
interface Element {
  name: string;
  attribs: Record<string, string>;
  children: Node[];
}

const isElement = (node: Node): node is Node & Element => 'attribs' in node;
const classes = (el: Element) => (el.attribs.class ?? '').split(/\s+/);
const hasClass = (el: Element, name: string) => classes(el).includes(name);
const VOID = new Set(['br', 'hr', 'img', 'input', 'wbr', 'col', 'area', 'source', 'track']);

/** `emoji-1f1fa-1f1f8` -> the characters. */
function emojiChars(el: Element): string | null {
  const code = classes(el).find((c) => /^emoji-[0-9a-f]+(-[0-9a-f]+)*$/.test(c));
  if (!code) return null;
  try {
    return String.fromCodePoint(...code.slice(6).split('-').map((hex) => parseInt(hex, 16)));
  } catch {
    return null;
  }
}

/** A KaTeX rendering's TeX source, as `$$...$$`. */
function texOf(el: Element): string {
  const annotation = hp().DomUtils.findOne((n) => n.name === 'annotation', el.children as never[], true);
  return `$$${annotation ? hp().DomUtils.textContent(annotation) : hp().DomUtils.textContent(el as never)}$$`;
}

/** A `<time>`'s instant in the reader's time zone. */
export function formatLocalTime(iso: string, timezone: string, twentyFourHour: boolean): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = {
    weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', hour12: !twentyFourHour, timeZoneName: 'short',
  };
  try {
    return new Intl.DateTimeFormat('en-US', { ...options, timeZone: timezone || 'UTC' }).format(date);
  } catch {
    return new Intl.DateTimeFormat('en-US', { ...options, timeZone: 'UTC' }).format(date);
  }
}

/** A link or image source as an email client must have it: absolute. */
function absolute(url: string, base: string): string {
  if (url.startsWith('#')) return `${base}/${url}`;
  if (url.startsWith('/') && !url.startsWith('//')) return `${base}${url}`;
  return url;
}

export interface EmailHtmlOptions {
  realmUrl: string;
  timezone: string;
  twentyFourHour: boolean;
}

const SPOILER_TITLE = 'Open Zulip to see the spoiler content';
// Previews an email client could not load (they need the reader's session) or would show badly.
const DROPPED = ['message_inline_image', 'youtube-video', 'message_embed', 'message_inline_ref', 'embed-video'];

/** A message's HTML for the HTML part of an email. */
export function emailHtml(rendered: string, opts: EmailHtmlOptions): string {
  const doc = parseDocument(rendered);
  const dropped: string[] = [];
  const walk = (nodes: Node[]): string => {
    let out = '';
    for (const node of nodes) {
      if (node.type === 'text') {
        out += h((node as unknown as { data: string }).data);
        continue;
      }
      if (!isElement(node)) continue;
      const el = node;
      if (DROPPED.some((c) => hasClass(el, c))) {
        const link = hp().DomUtils.findOne((n) => n.name === 'a', el.children as never[], true);
        if (link?.attribs.href) dropped.push(absolute(link.attribs.href, opts.realmUrl));
        continue;
      }
      if (el.name === 'span' && hasClass(el, 'emoji')) {
        out += h(emojiChars(el) ?? hp().DomUtils.textContent(el as never));
        continue;
      }
      if (hasClass(el, 'katex') || hasClass(el, 'katex-display')) {
        out += h(texOf(el));
        continue;
      }
      if (el.name === 'time' && el.attribs.datetime) {
        out += h(formatLocalTime(el.attribs.datetime, opts.timezone, opts.twentyFourHour));
        continue;
      }
      if (hasClass(el, 'spoiler-block')) {
        const header = el.children.find((c) => isElement(c) && hasClass(c, 'spoiler-header')) as Element | undefined;
        const inner = header ? walk(header.children).trim() : '';
        out += `<div class="spoiler-block">${inner.replace(/<\/p>\s*$/, '')} <span class="spoiler-title" title="${SPOILER_TITLE}">(${SPOILER_TITLE})</span>${inner.endsWith('</p>') ? '</p>' : ''}</div>`;
        continue;
      }
      let attrs = '';
      for (const [name, value] of Object.entries(el.attribs)) {
        if (name.startsWith('data-') || name === 'aria-hidden' || name === 'style') continue;
        const v = name === 'href' || name === 'src' ? absolute(value, opts.realmUrl) : value;
        attrs += ` ${name}="${h(v)}"`;
      }
      // Custom emoji: sized by attributes, which Outlook respects where it ignores CSS.
      if (el.name === 'img' && hasClass(el, 'emoji')) attrs += ' height="20" width="20"';
      out += VOID.has(el.name) ? `<${el.name}${attrs}>` : `<${el.name}${attrs}>${walk(el.children)}</${el.name}>`;
    }
    return out;
  };
  const html = walk(doc.children);
  // A message that was only an image: its link, rather than nothing.
  if (hp().DomUtils.textContent(parseDocument(html) as never).trim() === '' && dropped.length > 0) {
    return dropped.map((url) => `<p><a href="${h(url)}" target="_blank">${h(url)}</a></p>`).join('');
  }
  return html;
}

/**
 * A message's Markdown for the plain-text part of an email, as the reference sends it: image
 * links reduced to their URL, upload links made absolute, spoilers hidden, every line quoted.
 */
export function emailText(content: string, realmUrl: string): string {
  let text = content.replace(/\[(\S*)\]\((\S*)\)/g, '$2');
  text = text.replace(/(^|[^\w/])\/user_uploads\/(\S*)/g, `$1${realmUrl}/user_uploads/$2`);
  text = hideSpoilers(text);
  return text.split('\n').map((line) => `> ${line}`).join('\n');
}

/** fix_spoilers_in_text: a spoiler's fence and header stay; its content becomes a note. */
function hideSpoilers(content: string): string {
  const out: string[] = [];
  let open: string | null = null;
  for (const line of content.split('\n')) {
    const m = /^\s*(`{3,}|~{3,})\s*(\S*)/.exec(line);
    if (m) {
      if (m[2] === 'spoiler' && open === null) {
        open = m[1];
        out.push(line, `(${SPOILER_TITLE})`);
        continue;
      }
      if (open !== null && m[1] === open && m[2] === '') {
        open = null;
        out.push(line);
        continue;
      }
    }
    if (open === null) out.push(line);
  }
  return out.join('\n');
}

/** get_mobile_push_content: a notification's text, from the message's rendering. */
export function pushText(rendered: string): string {
  const doc = parseDocument(rendered);
  const text = (el: Element): string => {
    const chars = el.name === 'span' && hasClass(el, 'emoji') ? emojiChars(el) : null;
    if (chars) return chars;
    if (el.name === 'img') return el.attribs.alt ?? '';
    return '';
  };
  const process = (node: Node): string => {
    if (node.type === 'text') return (node as unknown as { data: string }).data;
    if (!isElement(node)) return '';
    const el = node;
    if (hasClass(el, 'katex') || hasClass(el, 'katex-display')) return texOf(el);
    if (el.name === 'ol') {
      let counter = el.attribs.start ? Number(el.attribs.start) : 1;
      return el.children.filter((c) => isElement(c) && c.name === 'li').map((li) => `${counter++}. ${process(li).trim()}`).join('\n');
    }
    if (hasClass(el, 'spoiler-block')) {
      const header = el.children.find((c) => isElement(c) && hasClass(c, 'spoiler-header'));
      const title = header ? process(header).trim() : '';
      return title === '' ? '(…)\n' : `${title} (…)\n`;
    }
    if (el.name === 'span' && hasClass(el, 'emoji') && emojiChars(el)) return text(el);
    let out = text(el);
    let inner = '';
    for (const child of el.children) inner += process(child);
    if (el.name === 'blockquote') inner = inner.split('\n').filter((line) => line !== '').map((line) => `> ${line}\n`).join('');
    return out + inner;
  };
  // potentially_collapse_quotes: a reply quoting earlier messages shows its own words, the
  // quotes folded into one "[…]".
  const top = doc.children.filter(isElement);
  const collapsible = top.map((el) => el.name === 'blockquote' || isSaidParagraph(el));
  let nodes: Node[] = doc.children;
  if (collapsible.some((c) => c) && !collapsible.every((c) => c)) {
    nodes = [];
    let previous = false;
    for (const child of doc.children) {
      const index = isElement(child) ? top.indexOf(child) : -1;
      const fold = index >= 0 && collapsible[index];
      if (fold && !previous) nodes.push(...parseDocument('<p>[…]</p>').children);
      if (!fold) nodes.push(child);
      if (index >= 0) previous = fold;
    }
  }
  return nodes.map(process).join('').trim();
}

/** "@Alice [said](…/near/5):": the line a quote-and-reply starts with. */
function isSaidParagraph(el: Element): boolean {
  if (el.name !== 'p') return false;
  const mentions = hp().DomUtils.findAll((n) => (n.attribs.class ?? '').split(/\s+/).includes('user-mention'), el.children as never[]);
  const links = hp().DomUtils.findAll((n) => n.name === 'a' && /\/near\/\d+/.test(n.attribs.href ?? ''), el.children as never[]);
  if (mentions.length !== 1 || links.length !== 1) return false;
  const rest = hp().DomUtils.textContent(el as never).replace(hp().DomUtils.textContent(mentions[0]), '').replace(hp().DomUtils.textContent(links[0]), '');
  return rest.trim() === ':';
}

/** truncate_content: at most 200 characters, the cut marked with an ellipsis. */
export function truncatePushText(text: string): string {
  const chars = [...text];
  return chars.length <= 200 ? text : `${chars.slice(0, 200).join('')}…`;
}
