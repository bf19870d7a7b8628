/**
 * Block structure with markdown-it, configured to the reference's block syntax: no setext
 * headings, no reference-style link definitions, no raw HTML blocks, fences handled by the
 * preprocessor (preprocess.ts), inline content handed to our inline engine (inline.ts), and
 * rendering tweaked where the reference's HTML differs (code blocks, list nesting, table
 * alignment, a lone ">"). Image and video links get the reference's inline previews.
 */
import { createRequire } from 'node:module';
import type MarkdownIt from 'markdown-it';
import type StateBlock from 'markdown-it/lib/rules_block/state_block.mjs';
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs';
import type Token from 'markdown-it/lib/token.mjs';
import { renderCodeBlock } from './highlight.js';
import { escapeAttr, InlineRun, type InlineNode, type LinkInfo } from './inline.js';
import { isImageUrl, isVideoUrl } from './links.js';
import { buildPatterns, type PatternFlags } from './patterns.js';
import { BLOCK_PLACEHOLDER } from './preprocess.js';
import type { RenderState } from './types.js';

export interface BlockEnv {
  state: RenderState;
  stash: string[];
  links: LinkInfo[];
  hasImage: boolean;
  /** real start numbers of nested ordered lists, by line (see normalizeListIndent) */
  listStarts: Map<number, number>;
}

/** The reference previews at most this many distinct URLs per message, else none. */
const PREVIEW_LIMIT = 24;

let md: MarkdownIt | undefined;

export function markdownEngine(): MarkdownIt {
  if (md) return md;
  // Required on first use, not imported: an idle shard (P4 in the bench) needs no renderer.
  const Engine = createRequire(import.meta.url)('markdown-it') as typeof MarkdownIt;
  md = new Engine('default', { html: false, breaks: true, linkify: false, typographer: false });
  // Deeper block nesting is cut off rather than recursed into (markdown-it's own guard).
  (md.options as { maxNesting?: number }).maxNesting = 40;
  md.block.ruler.disable(['lheading', 'reference', 'html_block', 'fence']);
  md.core.ruler.disable(['inline', 'linkify', 'replacements', 'smartquotes', 'text_join']);
  md.block.ruler.before('table', 'zulip_stash', stashBlock, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
  md.core.ruler.push('zulip_inline', processInline);

  const rules = md.renderer.rules;
  rules.zulip_html = (tokens, idx) => tokens[idx].content + (tokens[idx].meta?.newline ? '\n' : '');
  rules.code_block = (tokens, idx) => renderCodeBlock(tokens[idx].content.replace(/[ \t]+$/gm, ''), undefined) + '\n';
  // A list nested in a tight item follows the item's text directly, without a newline.
  for (const type of ['bullet_list_open', 'ordered_list_open']) {
    rules[type] = (tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options).replace(/^\n/, '');
  }
  for (const type of ['th_open', 'td_open']) {
    rules[type] = (tokens, idx, options, _env, self) => {
      const style = tokens[idx].attrGet('style');
      if (style) tokens[idx].attrSet('style', style.replace(/^text-align:(\w+)$/, 'text-align: $1;'));
      return self.renderToken(tokens, idx, options);
    };
  }
  return md;
}

/** A placeholder line left by the fence preprocessor becomes its finished HTML. */
function stashBlock(state: StateBlock, startLine: number, _endLine: number, silent: boolean): boolean {
  const line = state.src.slice(state.bMarks[startLine] + state.tShift[startLine], state.eMarks[startLine]);
  const m = BLOCK_PLACEHOLDER.exec(line);
  if (!m) return false;
  if (silent) return true;
  const token = state.push('zulip_html', '', 0);
  token.content = (state.env as BlockEnv).stash[Number(m[1])] ?? '';
  token.meta = { newline: true };
  token.block = true;
  token.map = [startLine, startLine + 1];
  state.line = startLine + 1;
  return true;
}

interface Preview {
  /** insert after this token index (or before, for list items) */
  at: number;
  before: boolean;
  html: string;
}

function processInline(core: StateCore): void {
  const env = core.env as BlockEnv;
  const tokens = replaceEmptyQuotes(core);
  const flags: PatternFlags = { inBlockquote: false };
  const patterns = buildPatterns(env.state, flags);
  const previews: Preview[] = [];
  const removed = new Set<number>();
  const previewed = new Set<string>();
  const candidates: { link: LinkInfo; inline: number; topLevel: boolean; alone: boolean }[] = [];
  let quoteDepth = 0;
  let srcLines: string[] | undefined;

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type === 'ordered_list_open' && token.map && env.listStarts.has(token.map[0])) {
      token.attrSet('start', String(env.listStarts.get(token.map[0])));
    }
    if (token.type === 'blockquote_open') quoteDepth++;
    else if (token.type === 'blockquote_close') quoteDepth--;
    if (token.type !== 'inline') continue;
    flags.inBlockquote = quoteDepth > 0;
    // Python-Markdown strips a paragraph's leading whitespace only: "test  " is <p>test  </p>.
    // markdown-it trims both ends, so the last line's trailing spaces are put back.
    const opener = tokens[i - 1];
    if (opener?.type === 'paragraph_open' && opener.map) {
      srcLines ??= core.src.split('\n');
      const trailing = / +$/.exec(srcLines[opener.map[1] - 1] ?? '');
      if (trailing && token.content !== '') token.content += trailing[0];
    }
    const run = new InlineRun(patterns, env.state.deadline);
    const data = run.process(token.content);
    const links = run.links();
    env.links.push(...links);
    const top = run.topLevelNodes(data).filter((n) => n.node.kind === 'el' && n.node.link);
    const child = new core.Token('html_inline', '', 0);
    child.content = run.render(data);
    token.children = [child];
    if (quoteDepth > 0) continue;
    for (const link of links) {
      const topNode = top.find((n) => (n.node as Extract<InlineNode, { kind: 'el' }>).link === link);
      candidates.push({ link, inline: i, topLevel: !!topNode, alone: !!topNode && data === topNode.placeholder });
    }
  }

  const distinct = new Set(candidates.map((c) => c.link.href));
  if (distinct.size > 0 && distinct.size <= PREVIEW_LIMIT) {
    const end = tokens.length - 1;
    for (const c of candidates) {
      const { href, text } = c.link;
      if (previewed.has(href)) continue;
      const kind = isVideoUrl(href) ? 'video' : isImageUrl(href) ? 'image' : undefined;
      if (!kind) continue;
      previewed.add(href);
      const title = text === href ? '' : ` title="${escapeAttr(text.replace(/[\u0002\u0003\uE030-\uE039]/g, ''))}"`;
      const html =
        kind === 'image'
          ? `<div class="message_inline_image"><a href="${escapeAttr(href)}"${title}>${imageTag(imageSource(href))}</a></div>`
          : `<div class="message_inline_image message_inline_video"><a href="${escapeAttr(href)}"${title}><video preload="metadata" src="${escapeAttr(href)}"></video></a></div>`;
      if (kind === 'image') env.hasImage = true;
      const opener = tokens[c.inline - 1];
      const removable = c.alone && text === href;
      if (!c.topLevel || opener?.type !== 'paragraph_open') {
        previews.push({ at: end, before: false, html });
      } else if (opener.hidden) {
        // A tight list item: the preview goes at the end of the item.
        if (removable) tokens[c.inline].children![0].content = '';
        previews.push({ at: itemClose(tokens, c.inline), before: true, html });
      } else {
        if (removable) [c.inline - 1, c.inline, c.inline + 1].forEach((n) => removed.add(n));
        previews.push({ at: c.inline + 1, before: false, html });
      }
    }
  }
  if (previews.length === 0) return;

  const out: Token[] = [];
  tokens.forEach((token, i) => {
    for (const p of previews) if (p.before && p.at === i) out.push(previewToken(core, p.html));
    if (!removed.has(i)) out.push(token);
    for (const p of previews) if (!p.before && p.at === i) out.push(previewToken(core, p.html));
  });
  core.tokens = out;
}

function previewToken(core: StateCore, html: string): Token {
  const token = new core.Token('zulip_html', '', 0);
  token.content = html;
  token.block = true;
  return token;
}

function itemClose(tokens: Token[], from: number): number {
  const level = tokens[from - 1].level - 1;
  for (let i = from; i < tokens.length; i++) {
    if (tokens[i].type === 'list_item_close' && tokens[i].level === level) return i;
  }
  return tokens.length - 1;
}

/**
 * The preview image. External images and uploads go through the reference's /thumbnail URL
 * (which this server answers with a redirect to the image: front/thumbnail.ts), with the
 * full-size form for the lightbox; other relative URLs load as they are.
 */
function imageTag(src: string): string {
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(src) && !src.startsWith('/user_uploads/')) return `<img src="${escapeAttr(src)}">`;
  const url = quotePlus(src.replace(/^\/+/, ''));
  return `<img data-src-fullsize="/thumbnail?url=${url}&amp;size=full" src="/thumbnail?url=${url}&amp;size=thumbnail">`;
}

/** Python's urllib.parse.quote_plus, as the reference's urlencode writes query values. */
function quotePlus(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, '+');
}

/** GitHub "blob" pages show an image; the preview loads the raw file instead. */
function imageSource(href: string): string {
  const m = /^https?:\/\/(?:[^/]+\.)?github\.com\/([^/]+)\/([^/]+)\/blob\/(.+)$/.exec(href);
  return m ? `https://raw.githubusercontent.com/${m[1]}/${m[2]}/${m[3]}` : href;
}

/** A quote with nothing in it is the text ">", as in the reference. */
function replaceEmptyQuotes(core: StateCore): Token[] {
  const tokens = core.tokens;
  for (let i = 0; i + 1 < tokens.length; i++) {
    if (tokens[i].type !== 'blockquote_open' || tokens[i + 1].type !== 'blockquote_close') continue;
    const open = new core.Token('paragraph_open', 'p', 1);
    const inline = new core.Token('inline', '', 0);
    inline.content = '>';
    const close = new core.Token('paragraph_close', 'p', -1);
    for (const t of [open, inline, close]) t.block = t.type !== 'inline';
    tokens.splice(i, 2, open, inline, close);
  }
  return tokens;
}
