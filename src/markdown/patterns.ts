/**
 * The reference's inline patterns, in its priority order (highest first). Each returns the
 * node to put in place of its match; see inline.ts for how they are applied.
 */
import { emojiTables, emojiToCode, EMOTICONS, isTextPresentation, POSSIBLE_EMOJI_SOURCE } from './emoji.js';
import { InlineNode, InlinePattern, PatternMatch, searchFrom, type InlineRun } from './inline.js';
import { compileLinkifier, findLinkifier } from './linkifiers.js';
import { encodeChannel, hashEncode, relativizeLocalLink, sanitizeUrl, webLinkRegex } from './links.js';
import { renderTex } from './tex.js';
import { parseTimestamp } from './timestamp.js';
import type { RenderState } from './types.js';

/** Mentions and channel links start at the beginning, after whitespace, or after '"({[/< . */
const BEFORE = String.raw`(?<![^\s'"({\[/<])`;
const STREAM_WILDCARDS = new Set(['all', 'everyone', 'stream', 'channel']);

// Compiled once; every search sets lastIndex first, so sharing them is safe.
const BACKTICK = /(?<!\\)(`+)([^\n]+?)(?<!`)\1(?!`)/g;
const STRONG_EM = /\*\*\*(?!\s+)([^*^\n]+)(?<!\s)\*\*\*/g;
const USER_MENTION = new RegExp(BEFORE + String.raw`@(_?)\*\*([^*]+)\*\*`, 'g');
const TEX = /\B(?<!\$)\$\$([^\n_$](?:\\\$|[^$\n])*)\$\$(?!\$)\B/g;
const MESSAGE_LINK = new RegExp(BEFORE + String.raw`#\*\*([^*>]+)>([^*]*)@(\d+)\*\*`, 'g');
const TOPIC_LINK = new RegExp(BEFORE + String.raw`#\*\*([^*>]+)>([^*]*)\*\*`, 'g');
const CHANNEL_LINK = new RegExp(BEFORE + String.raw`#\*\*([^*]+)\*\*`, 'g');
const TIMESTAMP = /<time:([^>]*?)>/g;
const GROUP_MENTION = new RegExp(BEFORE + String.raw`@(_?)\*([^*]+)\*`, 'g');
const ENTITY = /&(?:#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z0-9]+);/g;
const STRONG = /\*\*([^\n]+?)\*\*/g;
const EMPHASIS = /\*(?!\s+)([^*^\n]+)(?<!\s)\*/g;
const DEL = /(?<!~)~~([^~\n]+?)~~(?!~)/g;
const EMOJI = /:([\p{L}\p{N}\p{M}_+-]+):/gu;
const EMOTICON = /(?<![^,.;?!()[\] "'\n\t])(:\)|\(:|:\(|<3|:\||:\/|;\)|:D|:o|:O|:p|:P)(?![^,.;?!()[\] "'\n\t])/g;
const NEWLINE = /\n/g;
const UNICODE_EMOJI = new RegExp(POSSIBLE_EMOJI_SOURCE, 'gu');
/** Where a web link could start; the full detector only runs when one of these is present. */
const LINK_HINT = /:\/\/|[\p{L}\p{N}_-]\.[\p{L}\p{N}]|@|bitcoin:/u;

export interface PatternFlags {
  /** mentions inside quotes are silent, as the reference rewrites them */
  inBlockquote: boolean;
}

const el = (tags: string[], attrs: Record<string, string>, content: string, atomic: boolean): InlineNode => ({
  kind: 'el', tags, attrs, content, atomic,
});

/** A pattern from a regex whose leftmost match at or after `from` is handed to `make`. */
function regexPattern(
  name: string,
  re: RegExp,
  make: (m: RegExpExecArray, run: InlineRun) => InlineNode | null,
): InlinePattern {
  return {
    name,
    find(data, from, run): PatternMatch | undefined {
      const m = searchFrom(re, data, from);
      if (!m) return undefined;
      return { start: m.index, end: m.index + m[0].length, node: make(m, run) };
    },
  };
}

export function buildPatterns(state: RenderState, flags: PatternFlags): InlinePattern[] {
  const { ctx } = state;
  const emoji = emojiTables();

  const link = (href: string, text: string, attrs: Record<string, string> = {}): InlineNode => {
    const node = el(['a'], { ...attrs, href }, text, true);
    if (node.kind === 'el') node.link = { href, text };
    return node;
  };
  /** An <a> for a URL, or the URL as plain text when it may not be a link. */
  const urlToA = (url: string, text: string): InlineNode | null => {
    const href = sanitizeUrl(url);
    if (href === null || url.includes('\u0002')) return null;
    return link(relativizeLocalLink(href, ctx.realmUrl), text);
  };
  const emojiSpan = (code: string, display: string): InlineNode => {
    const title = display.slice(1, -1).replace(/_/g, ' ');
    return el(['span'], { class: `emoji emoji-${code}`, title, role: 'img', 'aria-label': title }, display, true);
  };
  const channelUrl = (id: number, name: string) => `/#narrow/channel/${encodeChannel(id, name)}`;
  const topicText = (channel: string, topic: string, run: InlineRun) =>
    topic === ''
      ? `#${channel} > ` + run.placeholder(el(['em'], {}, ctx.emptyTopicDisplayName ?? 'general chat', true))
      : `#${channel} > ${topic}`;

  const patterns: InlinePattern[] = [
    regexPattern('backtick', BACKTICK, (m) => el(['code'], {}, m[2], true)),

    regexPattern('strong_em', STRONG_EM, (m) => el(['strong', 'em'], {}, m[1], false)),

    regexPattern('user_mention', USER_MENTION, (m) => {
      const name = m[2];
      let silent = m[1] === '_' || flags.inBlockquote;
      const topicWildcard = name === 'topic';
      const streamWildcard = STREAM_WILDCARDS.has(name);
      let user;
      const byId = /^([^\n]+)?\|(\d+)$/.exec(name);
      if (byId) {
        user = ctx.userById(Number(byId[2]));
        if (byId[1] && user && user.fullName !== byId[1]) return null;
      } else {
        user = ctx.userByFullName(name);
      }
      let shown = name;
      let userId: string | undefined;
      if (streamWildcard) {
        if (!silent) state.wildcards.stream = true;
        userId = '*';
      } else if (topicWildcard) {
        if (!silent) state.wildcards.topic = true;
      } else if (user) {
        if (user.isActive === false) silent = true;
        if (!silent) state.mentionedUserIds.add(user.id);
        shown = user.fullName;
        userId = String(user.id);
      } else {
        return null;
      }
      let cls = topicWildcard ? 'topic-mention' : streamWildcard ? 'user-mention channel-wildcard-mention' : 'user-mention';
      if (silent) cls += ' silent';
      const attrs: Record<string, string> = { class: cls };
      if (userId) attrs['data-user-id'] = userId;
      return el(['span'], attrs, silent ? shown : '@' + shown, true);
    }),

    regexPattern('tex', TEX, (m) => {
      const html = renderTex(m[1], false);
      return html !== undefined
        ? { kind: 'raw', html }
        : el(['span'], { class: 'tex-error' }, `$$${m[1]}$$`, true);
    }),

    regexPattern('message_link', MESSAGE_LINK, (m, run) => {
      const channel = ctx.streamByName(m[1]);
      if (!channel) return null;
      const href = `${channelUrl(channel.id, channel.name)}/topic/${hashEncode(m[2])}/near/${m[3]}`;
      return link(href, topicText(channel.name, m[2], run) + ' @ 💬', { class: 'message-link' });
    }),

    regexPattern('topic_link', TOPIC_LINK, (m, run) => {
      const channel = ctx.streamByName(m[1]);
      if (!channel) return null;
      const href = `${channelUrl(channel.id, channel.name)}/topic/${hashEncode(m[2])}`;
      return link(href, topicText(channel.name, m[2], run), { class: 'stream-topic', 'data-stream-id': String(channel.id) });
    }),

    regexPattern('channel_link', CHANNEL_LINK, (m) => {
      const channel = ctx.streamByName(m[1]);
      if (!channel) return null;
      return link(channelUrl(channel.id, channel.name), `#${channel.name}`, {
        class: 'stream',
        'data-stream-id': String(channel.id),
      });
    }),

    regexPattern('timestamp', TIMESTAMP, (m) => {
      const iso = parseTimestamp(m[1]);
      return iso
        ? el(['time'], { datetime: iso }, m[1], true)
        : el(['span'], { class: 'timestamp-error' }, `Invalid time format: ${m[1]}`, true);
    }),

    regexPattern('group_mention', GROUP_MENTION, (m) => {
      const group = ctx.groupByName(m[2]);
      if (!group) return null;
      const silent = m[1] === '_' || flags.inBlockquote || group.deactivated === true;
      if (!silent) state.mentionedGroupIds.add(group.id);
      return el(
        ['span'],
        { class: silent ? 'user-group-mention silent' : 'user-group-mention', 'data-user-group-id': String(group.id) },
        silent ? group.name : '@' + group.name,
        true,
      );
    }),

    { name: 'link', find: (data, from) => findLink(data, from, urlToA) },

    {
      name: 'autolink',
      find(data, from) {
        if (!LINK_HINT.test(from > 0 ? data.slice(from) : data)) return undefined;
        const m = searchFrom(webLinkRegex(), data, from);
        if (!m) return undefined;
        const url = m.groups!.url;
        const node = urlToA(url, url) ?? { kind: 'text', text: url };
        return { start: m.index, end: m.index + m[0].length, node };
      },
    },

    ...ctx.linkifiers.flatMap((linkifier): InlinePattern[] => {
      const compiled = compileLinkifier(linkifier);
      if (!compiled) return [];
      return [{
        name: 'linkifier',
        find(data, from) {
          const m = findLinkifier(compiled, data, from);
          if (!m) return undefined;
          const node = urlToA(m.url, m.text);
          return node ? { start: m.start, end: m.end, node } : { start: m.matchStart, end: m.matchEnd, node: null };
        },
      }];
    }),

    regexPattern('entity', ENTITY, (m) => ({ kind: 'raw', html: m[0] })),
    regexPattern('strong', STRONG, (m) => el(['strong'], {}, m[1], false)),
    regexPattern('emphasis', EMPHASIS, (m) => el(['em'], {}, m[1], false)),
    regexPattern('del', DEL, (m) => el(['del'], {}, m[1], false)),

    regexPattern('emoji', EMOJI, (m) => {
      const name = m[1];
      const realm = ctx.realmEmoji?.[name];
      if (realm && !realm.deactivated) return realmEmoji(realm.sourceUrl, m[0]);
      if (name === 'zulip') return realmEmoji('/static/generated/emoji/images/emoji/unicode/zulip.png', m[0]);
      const code = emoji.nameToCode.get(name);
      return code ? emojiSpan(code, m[0]) : { kind: 'text', text: m[0] };
    }),

    regexPattern(
      'emoticon',
      EMOTICON,
      (m) => {
        if (!ctx.translateEmoticons) return null;
        const name = EMOTICONS[m[1]];
        const code = emoji.nameToCode.get(name);
        return code ? emojiSpan(code, `:${name}:`) : null;
      },
    ),

    regexPattern('newline', NEWLINE, () => ({ kind: 'raw', html: '<br>\n' })),

    regexPattern('unicode_emoji', UNICODE_EMOJI, (m) => {
      if (isTextPresentation(m[0])) return null;
      const code = emojiToCode(m[0]);
      const name = emoji.codeToName.get(code);
      return name ? emojiSpan(code, `:${name}:`) : null;
    }),
  ];
  return patterns;
}

function realmEmoji(src: string, display: string): InlineNode {
  return el(['img'], { src, class: 'emoji', alt: display, title: display.slice(1, -1).replace(/_/g, ' ') }, '', true);
}

/**
 * [text](url "title"): the text may hold nested brackets, the URL balanced parentheses.
 * Not after "!" (image syntax is not supported, as in the reference). A URL that may not be
 * a link leaves the whole thing as text.
 */
function findLink(
  data: string,
  from: number,
  urlToA: (url: string, text: string) => InlineNode | null,
): PatternMatch | undefined {
  const closing = closingBrackets(data);
  const open = /(?<!!)\[/g;
  for (let m = searchFrom(open, data, from); m; m = searchFrom(open, data, m.index + 1)) {
    const start = m.index;
    const end = closing.get(start);
    if (end === undefined || data[end + 1] !== '(') continue;
    const close = matchingParen(data, end + 1);
    if (close < 0) continue;
    let inner = data.slice(end + 2, close).trim();
    let title: string | undefined;
    const titled = /^([\s\S]*?)\s+(?:"([^"]*)"|'([^']*)')$/.exec(inner);
    if (titled) {
      inner = titled[1];
      title = titled[2] ?? titled[3];
    }
    if (inner.startsWith('<') && inner.endsWith('>')) inner = inner.slice(1, -1);
    const text = data.slice(start + 1, end);
    const node = urlToA(inner, text);
    if (!node || node.kind !== 'el') continue;
    if (!text.trim()) node.content = node.attrs.href;
    if (title !== undefined) node.attrs.title = title;
    node.link = { href: node.attrs.href, text: node.content };
    return { start, end: close + 1, node };
  }
  return undefined;
}

let bracketCache: { data: string; closing: Map<number, number> } | undefined;

/** Where each "[" closes, found in one pass (searching per bracket would be quadratic). */
function closingBrackets(data: string): Map<number, number> {
  if (bracketCache?.data === data) return bracketCache.closing;
  const closing = new Map<number, number>();
  const stack: number[] = [];
  for (let i = 0; i < data.length; i++) {
    if (data[i] === '[') stack.push(i);
    else if (data[i] === ']' && stack.length > 0) closing.set(stack.pop()!, i);
  }
  bracketCache = { data, closing };
  return closing;
}

function matchingParen(data: string, open: number): number {
  let depth = 0;
  for (let i = open; i < data.length; i++) {
    if (data[i] === '(') depth++;
    else if (data[i] === ')' && --depth === 0) return i;
    else if (data[i] === '\n' && data[i + 1] === '\n') return -1;
  }
  return -1;
}
