/**
 * The inline engine. The reference's inline syntax is a list of patterns in priority order,
 * each applied to the whole text before the next, with a match replaced by a placeholder that
 * lower-priority patterns cannot see into; an element's own text is then processed by the
 * patterns after the one that made it. Emphasis therefore cannot cut a mention in half, and
 * link text is never re-parsed. This engine does the same, so edge cases come out as the
 * reference renders them, which a left-to-right CommonMark inline parser cannot promise.
 *
 * Placeholders are \u0002, private-use digits, \u0003; both delimiters are stripped from the
 * input, so text cannot forge one. Text is HTML-escaped when rendered, and attribute values
 * too, so no input can produce markup.
 */
import { ApiError } from '../lib/errors.js';
import { renderClock } from './lazy.js';

export type InlineNode =
  | { kind: 'el'; tags: string[]; attrs: Record<string, string>; content: string; atomic: boolean; link?: LinkInfo }
  | { kind: 'text'; text: string }
  | { kind: 'raw'; html: string };

export interface LinkInfo {
  href: string;
  /** the link's text as written (placeholders of nested syntax included) */
  text: string;
}

export interface PatternMatch {
  start: number;
  end: number;
  /** null: not a match after all; keep searching after `end` */
  node: InlineNode | null;
}

export interface InlinePattern {
  name: string;
  find(data: string, from: number, run: InlineRun): PatternMatch | undefined;
}

/** A regex-backed search helper: the leftmost match of a global/sticky-free regex at or after `from`. */
export function searchFrom(re: RegExp, data: string, from: number): RegExpExecArray | null {
  re.lastIndex = from;
  return re.exec(data);
}

const PLACEHOLDER = /\u0002([\uE030-\uE039]+)\u0003/g;

export function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttr(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;');
}

export class InlineRun {
  private readonly stash: InlineNode[] = [];

  constructor(
    private readonly patterns: InlinePattern[],
    private readonly deadline: number,
  ) {}

  placeholder(node: InlineNode): string {
    const index = this.stash.push(node) - 1;
    return '\u0002' + String(index).replace(/\d/g, (d) => String.fromCharCode(0xe030 + Number(d))) + '\u0003';
  }

  node(placeholder: string): InlineNode | undefined {
    const m = /^\u0002([\uE030-\uE039]+)\u0003$/.exec(placeholder);
    return m ? this.stash[decodeIndex(m[1])] : undefined;
  }

  /**
   * Applies the patterns from `first` on, in order, each over the whole string. One pattern's
   * matches are collected in a single left-to-right pass and spliced in at once, which keeps a
   * message with thousands of matches linear.
   */
  process(data: string, first = 0): string {
    for (let i = first; i < this.patterns.length; i++) {
      const pattern = this.patterns[i];
      const pieces: string[] = [];
      let copied = 0;
      let from = 0;
      while (from <= data.length) {
        if (renderClock() > this.deadline) throw renderError();
        const m = pattern.find(data, from, this);
        if (!m) break;
        if (!m.node) {
          from = Math.max(m.end, from + 1);
          continue;
        }
        if (m.node.kind === 'el' && !m.node.atomic) m.node.content = this.process(m.node.content, i + 1);
        pieces.push(data.slice(copied, m.start), this.placeholder(m.node));
        copied = m.end;
        from = Math.max(m.end, from + 1);
      }
      if (pieces.length > 0) data = pieces.join('') + data.slice(copied);
    }
    return data;
  }

  render(data: string): string {
    let out = '';
    let last = 0;
    PLACEHOLDER.lastIndex = 0;
    for (let m = PLACEHOLDER.exec(data); m; m = PLACEHOLDER.exec(data)) {
      out += escapeText(data.slice(last, m.index)) + this.renderNode(this.stash[decodeIndex(m[1])]);
      last = m.index + m[0].length;
      PLACEHOLDER.lastIndex = last;
    }
    return out + escapeText(data.slice(last));
  }

  /** The placeholders at the top level of `data`, in order. */
  topLevelNodes(data: string): { placeholder: string; node: InlineNode }[] {
    const found: { placeholder: string; node: InlineNode }[] = [];
    for (const m of data.matchAll(PLACEHOLDER)) found.push({ placeholder: m[0], node: this.stash[decodeIndex(m[1])] });
    return found;
  }

  /** Every link made during this run, nested ones included. */
  links(): LinkInfo[] {
    return this.stash.flatMap((n) => (n.kind === 'el' && n.link ? [n.link] : []));
  }

  private renderNode(node: InlineNode): string {
    switch (node.kind) {
      case 'text':
        return escapeText(node.text);
      case 'raw':
        return node.html;
      case 'el': {
        // Atomic content (code, link text) was never processed, but may hold placeholders made
        // before it (a mention inside link text); rendering expands those and escapes the rest.
        const inner = this.render(node.content);
        const [outer, ...rest] = node.tags;
        const attrs = Object.keys(node.attrs)
          .sort()
          .map((k) => ` ${k}="${escapeAttr(node.attrs[k])}"`)
          .join('');
        const opens = rest.map((t) => `<${t}>`).join('');
        const closes = [...rest].reverse().map((t) => `</${t}>`).join('');
        if (outer === 'img') return `<img${attrs}>`;
        return `<${outer}${attrs}>${opens}${inner}${closes}</${outer}>`;
      }
    }
  }
}

function decodeIndex(digits: string): number {
  let n = 0;
  for (const ch of digits) n = n * 10 + (ch.charCodeAt(0) - 0xe030);
  return n;
}

export function renderError(): ApiError {
  return new ApiError('Unable to render message');
}
