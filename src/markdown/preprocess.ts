/**
 * Line-level passes that run before block parsing, as the reference's preprocessors do:
 * whitespace normalization, hanging lists, and fenced blocks (code, quote, spoiler, math).
 *
 * Fenced blocks follow the reference rather than CommonMark: a fence starts at column 0 only,
 * closes on a line equal to the opening fence, and quote and spoiler fences nest. Code and
 * math blocks are rendered here and left as placeholder lines, which a block rule turns back
 * into HTML, so their contents never see Markdown.
 */
import { renderCodeBlock } from './highlight.js';
import { renderTex } from './tex.js';

/** Placeholder lines stand for finished HTML blocks; \u0001 is stripped from input first. */
export const BLOCK_PLACEHOLDER = /^\u0001(\d+)\u0001$/;
const placeholderLine = (index: number) => `\u0001${index}\u0001`;

const FENCE_RE = /^((?:~{3,}|`{3,}))[ ]*(?:\{?\.?([a-zA-Z0-9_+\-./#]+)[ ]*([^ ~`][^~`]*)?\}?)?$/;
const LIST_ITEM = /^[ ]*([*+-]|\d+\.)[ ]+/;
/** Quote and spoiler fences deeper than this are kept as text. */
const MAX_FENCE_DEPTH = 24;

export function normalize(content: string): string[] {
  const text = content
    .replace(/[\u0001-\u0003]/g, '')
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map(expandTabs)
    .map((line) => (/^ +$/.test(line) ? '' : line));
  return text;
}

function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const ch of line) out += ch === '\t' ? ' '.repeat(4 - (out.length % 4)) : ch;
  return out;
}

/**
 * A list right after a paragraph (or a list of the other kind) gets a blank line before it, so
 * "Text:\n* item" is a paragraph and a list, as in the reference.
 */
export function separateHangingLists(lines: string[]): string[] {
  const out: string[] = [];
  const fences: { fence: string; isCode: boolean }[] = [];
  let inCode = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    out.push(line);
    const m = FENCE_RE.exec(line);
    if (m) {
      const lang = m[2];
      const closes = !lang && fences.length > 0 && fences[fences.length - 1].fence === m[1];
      if (closes) fences.pop();
      else fences.push({ fence: m[1], isCode: lang !== 'quote' && lang !== 'quoted' });
      inCode = fences.some((f) => f.isCode);
    }
    if (inCode || !line || i + 1 >= lines.length) continue;
    const li1 = LIST_ITEM.exec(line);
    const li2 = LIST_ITEM.exec(lines[i + 1]);
    if ((li2 && !li1) || (li1 && li2 && isBullet(li1[1]) !== isBullet(li2[1]))) {
      out.push('');
    }
  }
  return out;
}

const isBullet = (marker: string) => /^[*+-]$/.test(marker);

interface Handler {
  fence?: string;
  kind: 'outer' | 'code' | 'quote' | 'spoiler' | 'math';
  lang?: string;
  header?: string;
  lines: string[];
  output: string[];
}

/** Runs the fenced-block state machine; `stash` receives the HTML of finished blocks. */
export function processFences(lines: string[], stash: string[], defaultLanguage: string | undefined): string[] {
  const output: string[] = [];
  const handlers: Handler[] = [{ kind: 'outer', lines: output, output }];
  const store = (html: string) => stash.push(html) - 1;

  const tryOpen = (line: string, target: string[], withDefault: boolean): void => {
    const m = handlers.length < MAX_FENCE_DEPTH ? FENCE_RE.exec(line) : null;
    if (!m) {
      target.push(line);
      return;
    }
    const lang = (m[2] ?? (withDefault ? defaultLanguage : undefined))?.toLowerCase() || undefined;
    const kind = lang === 'quote' || lang === 'quoted' ? 'quote' : lang === 'math' ? 'math' : lang === 'spoiler' ? 'spoiler' : 'code';
    handlers.push({ fence: m[1], kind, lang, header: m[3], lines: [], output: target });
  };

  const done = (): void => {
    const h = handlers.pop()!;
    if (h.kind === 'outer' || h.lines.length === 0) return;
    const text = h.lines.join('\n');
    let formatted: string;
    switch (h.kind) {
      case 'code':
        formatted = placeholderLine(store(renderCodeBlock(text, h.lang)));
        break;
      case 'math':
        formatted = placeholderLine(store(renderMathBlock(text)));
        break;
      case 'quote':
        formatted = text.split('\n').map((l) => '> ' + l).join('\n');
        break;
      case 'spoiler':
        formatted = [
          placeholderLine(store('<div class="spoiler-block"><div class="spoiler-header">')),
          ...(h.header !== undefined ? [h.header] : []),
          placeholderLine(store('</div><div class="spoiler-content" aria-hidden="true">')),
          text,
          placeholderLine(store('</div></div>')),
        ].join('\n\n');
        break;
    }
    h.output.push('', ...formatted.split('\n'), '');
  };

  for (const line of lines) {
    const top = handlers[handlers.length - 1];
    if (top.kind === 'outer') {
      tryOpen(line, output, true);
    } else if (line.trimEnd() === top.fence) {
      done();
    } else if (top.kind === 'quote' || top.kind === 'spoiler') {
      tryOpen(line, top.lines, top.kind === 'quote');
    } else {
      top.lines.push(line.trimEnd());
    }
  }
  while (handlers.length > 0) done();
  return output;
}

function renderMathBlock(text: string): string {
  const parts = text.split('\n\n').map((paragraph) => {
    return renderTex(paragraph, true) ?? `<span class="tex-error">${escapeAll(paragraph)}</span>`;
  });
  return `<p>${parts.join('\n\n')}</p>`;
}

export function escapeAll(text: string): string {
  return text
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
}

/**
 * The reference nests list items by 2-space indentation, CommonMark by the item's content
 * column. Each list item line is re-indented to the content column of its parent item, and
 * bullet markers are unified (the reference makes one list of "*", "-" and "+" items).
 *
 * CommonMark also lets only a list starting at 1 interrupt a paragraph, which a nested list
 * must do; such a list is written as starting at 1 and its real start is returned by line
 * number, for the block pass to put back.
 */
export function normalizeListIndent(lines: string[]): { lines: string[]; listStarts: Map<number, number> } {
  const stack: { level: number; content: number }[] = [];
  const listStarts = new Map<number, number>();
  let lastLevel = -1;
  const out = lines.map((line, index) => {
    if (line === '') return line;
    const m = /^( *)([*+-]|(\d+)\.)( +)(?=\S)/.exec(line);
    const indent = /^ */.exec(line)![0].length;
    if (!m || /^ *([*-])( *\1){2,} *$/.test(line)) {
      if (indent === 0 && !BLOCK_PLACEHOLDER.test(line)) {
        stack.length = 0;
        lastLevel = -1;
      }
      return line;
    }
    if (stack.length === 0 && indent >= 4) return line;
    const level = Math.floor(indent / 2);
    while (stack.length > 0 && stack[stack.length - 1].level >= level) stack.pop();
    const column = level > 0 && stack.length > 0 ? stack[stack.length - 1].content : indent >= 4 ? 0 : indent;
    let marker = isBullet(m[2]) ? '-' : m[2];
    let spaces = m[4];
    if (m[3] !== undefined && stack.length > 0 && level > lastLevel && Number(m[3]) !== 1) {
      listStarts.set(index, Number(m[3]));
      spaces = ' '.repeat(marker.length - 2) + spaces;
      marker = '1.';
    }
    lastLevel = level;
    stack.push({ level, content: column + marker.length + spaces.length });
    return ' '.repeat(column) + marker + spaces + line.slice(m[0].length);
  });
  return { lines: out, listStarts };
}

const QUOTE_LINE = /^ {0,3}>/;

/**
 * Python-Markdown's quotes, on CommonMark's parser: in a block of lines without a blank one, a
 * line starting with ">" begins a quote that takes the rest of the block, ">" or not. CommonMark
 * keeps a later line in the quote only as a lazy continuation of an open paragraph, so
 * ">\n>\ntext" (no paragraph yet) would end the quote; writing the ">" out makes the two agree.
 * Placeholder lines (finished fenced blocks) end a block, as the blank lines around them do in
 * the reference.
 */
export function continueQuotes(lines: string[]): string[] {
  let quoting = false;
  return lines.map((line) => {
    if (line === '' || BLOCK_PLACEHOLDER.test(line)) {
      quoting = false;
      return line;
    }
    if (QUOTE_LINE.test(line)) {
      quoting = true;
      return line;
    }
    return quoting ? '> ' + line : line;
  });
}
