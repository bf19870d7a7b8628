/**
 * Zulip-flavoured Markdown: message content to the HTML the reference server produces, plus
 * what the message code needs to set flags (mentions, wildcards, links, images, attachments).
 *
 * The pipeline is the reference's: line preprocessors (whitespace, hanging lists, fenced
 * blocks), block parsing (markdown-it), the inline patterns in priority order, and link
 * previews. docs/markdown.md lists the syntax and the known differences.
 */
import { ApiError } from '../lib/errors.js';
import { renderClock } from './lazy.js';
import { markdownEngine, type BlockEnv } from './blocks.js';
import { renderError } from './inline.js';
import { topicLinks } from './linkifiers.js';
import { uploadPathId } from './links.js';
import { continueQuotes, normalize, normalizeListIndent, processFences, separateHangingLists } from './preprocess.js';
import type { RenderContext, RenderResult, RenderState } from './types.js';

export type { MentionableGroup, MentionableUser, RenderContext, RenderResult } from './types.js';
export { emojiTables, emojiToCode } from './emoji.js';
export { sanitizeUrl } from './links.js';

/** The reference's cap on rendered size: 100 times its 10,000-character message limit. */
export const MAX_RENDERED_LENGTH = 1_000_000;
/**
 * The reference gives up after 5 s of rendering. A shard is single-threaded, so we give up
 * sooner: well-formed messages render in well under a millisecond (see bench.ts).
 */
export const RENDER_TIME_LIMIT_MS = 1000;

/**
 * One line of plain words and the commonest inline markup, which renders without the pipeline.
 * No rule of the renderer but emphasis and code spans (links, mentions, emoji, emoticons,
 * entities, lists, headings, quotes, hard breaks) can apply to such a line, and nothing in it
 * needs escaping. Most chat messages are like that; the full pipeline (preprocessors,
 * markdown-it's block and inline passes, our inline patterns) took about a tenth of a shard's
 * time per send in the delivery profiles. A realm's linkifiers can match any text, so a realm
 * that has them always takes the full path. test/markdown/plain.test.ts checks that both paths
 * give the same result, on a fuzzed alphabet of these characters and others.
 *
 * The line is tokens split by single spaces. A plain token is letters, digits, commas,
 * apostrophes and hyphens (not first), with at most one `.`, `!` or `?` at its end. A marked
 * token is a whole `**strong**`, `*em*` or `` `code` `` span: its inside is words of letters,
 * digits, commas, apostrophes and hyphens between single spaces, starting and ending with a
 * letter or digit (a code span's may also hold `.`, `!` and `?`), so that every delimiter is
 * flanked the one way CommonMark reads as a span. The line starts with a letter, a digit or a
 * span, and not with digits and a dot (an ordered list).
 */
const WORD = "[A-Za-z0-9,'][A-Za-z0-9,'-]*[.!?]?";
const INSIDE = "[A-Za-z0-9](?:[A-Za-z0-9,' -]*[A-Za-z0-9])?";
const CODE = "[A-Za-z0-9,'.!?-](?:[A-Za-z0-9,'.!? -]*[A-Za-z0-9,'.!?-])?";
const TOKEN = `(?:\\*\\*${INSIDE}\\*\\*|\\*${INSIDE}\\*|\`${CODE}\`|${WORD})`;
const SIMPLE = new RegExp(`^(?=[A-Za-z0-9*\`])${TOKEN}(?: ${TOKEN})*$`);
const SPANS = /\*\*([^*]+)\*\*|\*([^*]+)\*|`([^`]+)`/g;

/** The shortcut alone: null when the content is not such a line (exported for its test). */
export function renderSimple(content: string, ctx: RenderContext): RenderResult | null {
  if (ctx.linkifiers.length > 0 || content.includes('  ') || !SIMPLE.test(content) || /^[0-9]+\./.test(content)) return null;
  const inline = /[*`]/.test(content) ? content.replace(SPANS, (_, strong, em, code) => (strong ? `<strong>${strong}</strong>` : em ? `<em>${em}</em>` : `<code>${code}</code>`)) : content;
  return {
    html: `<p>${inline}</p>`,
    mentionedUserIds: [],
    mentionedGroupIds: [],
    wildcards: { stream: false, topic: false },
    hasLink: false,
    hasImage: false,
    hasAttachment: false,
    attachmentPathIds: [],
    isMeMessage: false,
    alertedUserIds: ctx.alertWords ? [...ctx.alertWords(content)] : [],
  };
}

/** Renders message content; throws ApiError "Unable to render message" when a cap is hit. */
export function renderMarkdown(content: string, ctx: RenderContext): RenderResult {
  return renderSimple(content, ctx) ?? renderFully(content, ctx);
}

/** The whole pipeline, whatever the content (renderMarkdown takes a shortcut for simple lines). */
export function renderFully(content: string, ctx: RenderContext): RenderResult {
  const state: RenderState = {
    ctx,
    mentionedUserIds: new Set(),
    mentionedGroupIds: new Set(),
    wildcards: { stream: false, topic: false },
    deadline: renderClock() + RENDER_TIME_LIMIT_MS,
  };
  const env: BlockEnv = { state, stash: [], links: [], hasImage: false, listStarts: new Map() };
  let html = '';
  let alertedUserIds: number[] = [];
  if (content.trim() !== '') {
    try {
      let lines = separateHangingLists(normalize(content));
      lines = continueQuotes(processFences(lines, env.stash, ctx.defaultCodeBlockLanguage));
      if (ctx.alertWords) alertedUserIds = [...ctx.alertWords(lines.join('\n'))];
      const lists = normalizeListIndent(lines);
      env.listStarts = lists.listStarts;
      html = markdownEngine().render(lists.lines.join('\n'), env).replace(/\n+$/, '');
    } catch (err) {
      // Anything but our own cap errors is a renderer bug; the sender still gets the reference's
      // answer rather than a 500, and the message is not stored half-rendered.
      if (err instanceof ApiError) throw err;
      throw renderError();
    }
    if (html.length > MAX_RENDERED_LENGTH || renderClock() > state.deadline) throw renderError();
  }
  const attachmentPathIds = [
    ...new Set(env.links.flatMap((link) => uploadPathId(link.href, ctx.realmUrl) ?? [])),
  ];
  return {
    html,
    mentionedUserIds: [...state.mentionedUserIds],
    mentionedGroupIds: [...state.mentionedGroupIds],
    wildcards: state.wildcards,
    hasLink: env.links.length > 0,
    hasImage: env.hasImage,
    hasAttachment: attachmentPathIds.length > 0,
    attachmentPathIds,
    isMeMessage: content.startsWith('/me '),
    alertedUserIds,
  };
}

/** The reference's `topic_links`: linkifier matches and raw URLs in a topic name. */
export function renderTopicLinks(topic: string, ctx: RenderContext): { text: string; url: string }[] {
  return topicLinks(topic, ctx.linkifiers);
}
