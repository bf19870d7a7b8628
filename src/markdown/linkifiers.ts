/**
 * Realm linkifiers: a pattern in RE2 syntax and an RFC 6570 URL template. Patterns run on
 * re2js, a linear-time RE2 port, as they do on RE2 in the reference, so no pattern an
 * administrator writes can make rendering backtrack for ever.
 */
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { parseTemplate } from 'url-template';
import { webLinkRegex } from './links.js';

let re2js: typeof RE2JS | undefined;
/**
 * re2js, loaded with the first linkifier compiled (about 0.6 MB of heap in each shard thread that
 * loads it; organizations without linkifiers never do). Required, not imported, so that
 * rendering stays synchronous.
 */
export function re2(): typeof RE2JS {
  return (re2js ??= (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS);
}

export interface Linkifier {
  pattern: string;
  urlTemplate: string;
}

export interface CompiledLinkifier {
  regex: RE2JS;
  groupNames: string[];
  expand(vars: Record<string, string>): string;
}

export const BEFORE_GROUP = 'linkifier_before_match';
export const MATCH_GROUP = 'linkifier_actual_match';
export const AFTER_GROUP = 'linkifier_after_match';

/** A match only starts after whitespace or an opening delimiter, and ends before a non-word. */
function preparePattern(source: string): string {
  return `(?P<${BEFORE_GROUP}>^|\\s|\\x{85}|\\pZ|['"\\(,:<])(?P<${MATCH_GROUP}>${source})(?P<${AFTER_GROUP}>$|[^\\pL\\pN])`;
}

const cache = new Map<string, CompiledLinkifier | null>();
const CACHE_LIMIT = 2000;

/** The compiled linkifier, or null when the pattern or template does not compile. */
export function compileLinkifier(linkifier: Linkifier): CompiledLinkifier | null {
  const key = linkifier.pattern + '\u0000' + linkifier.urlTemplate;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let compiled: CompiledLinkifier | null;
  try {
    const regex = re2().compile(preparePattern(linkifier.pattern));
    const template = parseTemplate(linkifier.urlTemplate);
    compiled = {
      regex,
      groupNames: Object.keys(regex.namedGroups()),
      expand: (vars) => template.expand(vars),
    };
  } catch {
    compiled = null;
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, compiled);
  return compiled;
}

export interface LinkifierMatch {
  /** where the linked text starts and ends (the before/after delimiters are not part of it) */
  start: number;
  end: number;
  /** where the whole match, delimiters included, starts and ends */
  matchStart: number;
  matchEnd: number;
  text: string;
  url: string;
}

/** The first match at or after `from`, or undefined. */
export function findLinkifier(linkifier: CompiledLinkifier, text: string, from: number): LinkifierMatch | undefined {
  const matcher = linkifier.regex.matcher(text);
  if (!matcher.find(from)) return undefined;
  const vars: Record<string, string> = {};
  for (const name of linkifier.groupNames) {
    const value = matcher.group(name);
    if (value !== null && value !== undefined) vars[name] = value;
  }
  return {
    start: matcher.start(2),
    end: matcher.end(2),
    matchStart: matcher.start(),
    matchEnd: matcher.end(),
    text: matcher.group(2) ?? '',
    url: linkifier.expand(vars),
  };
}

interface TopicMatch {
  url: string;
  text: string;
  index: number;
  precedence: number;
}

/**
 * The links in a topic name, as the reference computes `topic_links`: every linkifier match
 * (earlier linkifiers win overlaps), then raw URLs, overlaps dropped, in order of position.
 */
export function topicLinks(topic: string, linkifiers: Linkifier[]): { text: string; url: string }[] {
  const matches: TopicMatch[] = [];
  linkifiers.forEach((linkifier, precedence) => {
    const compiled = compileLinkifier(linkifier);
    if (!compiled) return;
    let pos = 0;
    while (pos < topic.length) {
      const m = findLinkifier(compiled, topic, pos);
      if (!m) break;
      // Rewind over the trailing delimiter so a following match can start there.
      const next = m.end;
      matches.push({ url: m.url, text: m.text, index: m.matchStart, precedence });
      pos = next > pos ? next : pos + 1;
    }
  });
  matches.sort((a, b) => a.precedence - b.precedence || a.index - b.index);

  const sticky = stickyWebLink();
  const splitter = /[ !;),'"]/g;
  let pos = 0;
  while (pos < topic.length) {
    splitter.lastIndex = pos;
    const split = splitter.exec(topic);
    const end = split ? split.index : topic.length;
    const segment = topic.slice(pos, end);
    sticky.lastIndex = 0;
    const m = sticky.exec(segment);
    if (m?.groups?.url) {
      const text = m.groups.url;
      matches.push({ url: withScheme(text), text, index: pos, precedence: Number.MAX_SAFE_INTEGER });
    }
    pos = end + 1;
  }

  const overlaps = (a: TopicMatch, b: TopicMatch) =>
    (b.index <= a.index && a.index < b.index + b.text.length) ||
    (a.index <= b.index && b.index < a.index + a.text.length);
  const applied: TopicMatch[] = [];
  for (const match of matches) {
    if (applied.every((old) => !overlaps(old, match))) applied.push(match);
  }
  applied.sort((a, b) => a.index - b.index);
  return applied.map((m) => ({ text: m.text, url: m.url }));
}

let sticky: RegExp | undefined;

/**
 * The web-link pattern anchored at lastIndex. Compiled once: the pattern carries every TLD, and
 * compiling it took half of a send's CPU when each recipient's copy of the message recompiled it.
 */
function stickyWebLink(): RegExp {
  return (sticky ??= new RegExp(webLinkRegex().source, 'uy'));
}

/** A scheme-less URL found in a topic is linked over https, host taken from the path. */
function withScheme(url: string): string {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(url)) return url;
  return 'https://' + url;
}
