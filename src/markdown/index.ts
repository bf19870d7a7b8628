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
 * One line of letters, digits, single spaces between words, commas and apostrophes: no rule of
 * the renderer (emphasis, links, mentions, emoji, emoticons, entities, code, lists, headings,
 * quotes, hard breaks) can apply to it, and nothing in it needs escaping, so it renders as
 * itself in a paragraph. Most chat messages are like that; the full pipeline (preprocessors,
 * markdown-it's block and inline passes, our inline patterns) took about a tenth of a shard's
 * time per send in the delivery profiles. A realm's linkifiers can match any text, so a realm
 * that has them always takes the full path. test/markdown/plain.test.ts checks that both paths
 * give the same result.
 */
const PLAIN = /^[A-Za-z0-9](?:[A-Za-z0-9,']| (?! ))*$/;

function plainResult(content: string, ctx: RenderContext): RenderResult | null {
  if (ctx.linkifiers.length > 0 || !PLAIN.test(content) || content.endsWith(' ')) return null;
  return {
    html: `<p>${content}</p>`,
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
  return plainResult(content, ctx) ?? renderFully(content, ctx);
}

/** The whole pipeline, whatever the content (renderMarkdown takes a shortcut for plain text). */
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
