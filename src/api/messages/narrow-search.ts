import type { MessageRecord } from '../../model/message.js';
import { messageWords, words } from '../../store/search.js';

/**
 * The `search` operator: every word must occur in the message's content or topic (words as
 * store/search.ts cuts them, so a query is answered from the index), and each "quoted phrase"
 * must occur as written, case aside, as the reference's phrase search does.
 */
export interface SearchQuery {
  words: string[];
  phrases: string[];
}

export function parseSearch(operand: string): SearchQuery {
  const phrases: string[] = [];
  for (const match of operand.matchAll(/"([^"]+)"/g)) phrases.push(match[1].toLowerCase());
  return { words: words(operand), phrases };
}

export function matchesSearch(query: SearchQuery, msg: MessageRecord): boolean {
  if (query.words.length === 0) return false;
  const have = new Set(messageWords(msg));
  if (!query.words.every((w) => have.has(w))) return false;
  const content = msg.content.toLowerCase();
  const topic = msg.topic.toLowerCase();
  return query.phrases.every((p) => content.includes(p) || topic.includes(p));
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const START = '<span class="highlight">';
const STOP = '</span>';

/**
 * Wraps the query's words in `<span class="highlight">`, in the text of an HTML fragment only:
 * tags and character references are copied as they are, so the markup stays valid.
 */
export function highlight(html: string, query: SearchQuery): string {
  const wanted = new Set(query.words);
  if (wanted.size === 0) return html;
  let out = '';
  // Tags, character references, and words; whatever lies between is copied.
  const token = /<[^>]*>|&[#a-zA-Z0-9]+;|[\p{L}\p{N}]+/gu;
  let pos = 0;
  for (const m of html.matchAll(token)) {
    const text = m[0];
    out += html.slice(pos, m.index);
    pos = m.index! + text.length;
    out += text[0] !== '<' && text[0] !== '&' && wanted.has(text.toLowerCase()) ? START + text + STOP : text;
  }
  return out + html.slice(pos);
}

/** match_content and match_subject of a narrow without search terms: the message as it is. */
export function plainFields(rendered: string, shownTopic: string): { match_content: string; match_subject: string } {
  return { match_content: rendered, match_subject: escapeHtml(shownTopic) };
}

/** match_content and match_subject for one message of a search narrow. */
export function searchFields(rendered: string, shownTopic: string, query: SearchQuery): { match_content: string; match_subject: string } {
  return { match_content: highlight(rendered, query), match_subject: highlight(escapeHtml(shownTopic), query) };
}
