/**
 * Unicode emoji names and codes: the reference server's curated name table (tables/emoji-names.json,
 * see tables/README.md), the one emoji name table of this server. Markdown, reactions and the file
 * at `server_emoji_data_url` all read it, so a name means the same emoji everywhere.
 *
 * Codes follow the reference's encoding: lowercase hex code points joined by "-", at least four
 * digits each, with every U+FE0F variation selector removed ("2764", "0023-20e3"). The lookups
 * are built as the reference's build_emoji builds name_to_codepoint, codepoint_to_name and
 * code_to_names: every canonical name and alias maps to its code (a later entry would win a
 * shared name; the table has none), a code to its canonical name, and a code to all its names,
 * canonical first. Emoji the table lacks (the Unicode 15.1 ones) are not emoji here, as there.
 */
import { createHash } from 'node:crypto';
import table from './tables/emoji-names.json' with { type: 'json' };

export interface EmojiTables {
  /** name -> code (the reference's name_to_codepoint) */
  nameToCode: Map<string, string>;
  /** code -> canonical name (codepoint_to_name) */
  codeToName: Map<string, string>;
  /** code -> all names, canonical first (the shape of the reference's `code_to_names`) */
  codeToNames: Map<string, string[]>;
}

let tables: EmojiTables | undefined;

export function emojiTables(): EmojiTables {
  if (tables) return tables;
  const nameToCode = new Map<string, string>();
  const codeToName = new Map<string, string>();
  const codeToNames = new Map<string, string[]>();
  for (const [code, canonical, aliases] of table.emoji as [string, string, string[]][]) {
    const names = [canonical, ...aliases];
    for (const name of names) nameToCode.set(name, code);
    codeToName.set(code, canonical);
    codeToNames.set(code, names);
  }
  tables = { nameToCode, codeToName, codeToNames };
  return tables;
}

export { EMOJI_API_PATH } from './emoji-url.js';

/**
 * The file `server_emoji_data_url` names: `{"code_to_names": {code: [canonical, ...aliases]}}`,
 * the same table reactions and Markdown accept, with a strong ETag for conditional requests.
 */
export function emojiApiFile(): { body: string; etag: string } {
  if (!apiFile) {
    const body = JSON.stringify({ code_to_names: Object.fromEntries(emojiTables().codeToNames) });
    apiFile = { body, etag: `"${createHash('sha1').update(body).digest('hex')}"` };
  }
  return apiFile;
}

let apiFile: { body: string; etag: string } | undefined;

/** The reference's code for a run of emoji characters: FE0F dropped, each code point as hex. */
export function emojiToCode(text: string): string {
  const parts: string[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0xfe0f) continue;
    parts.push(cp.toString(16).padStart(4, '0'));
  }
  return parts.join('-');
}

/**
 * One possible emoji sequence (Unicode TR51's EBNF, as the reference's POSSIBLE_EMOJI_RE):
 * a flag pair, or an emoji with an optional modifier, presentation selector or tag sequence,
 * joined by ZWJ to more of the same.
 */
const ELEMENT = String.raw`(?:\p{RI}\p{RI}|\p{Emoji}(?:\p{Emoji_Modifier}|\uFE0F\u20E3?|[\u{E0020}-\u{E007E}]+\u{E007F})?)`;
export const POSSIBLE_EMOJI_SOURCE = String.raw`${ELEMENT}(?:\u200D${ELEMENT})*`;

/** Single characters that are text by default (arrows, digits, "#"): never turned into emoji. */
const TEXT_PRESENTATION = /^\P{Emoji_Presentation}\u20E3?$/u;

export function isTextPresentation(match: string): boolean {
  return TEXT_PRESENTATION.test(match);
}

/**
 * The emoticons the reference translates when the sender's translate_emoticons is on, and the
 * emoji name each becomes (its EMOTICON_CONVERSIONS); the names are the table's.
 */
export const EMOTICONS: Record<string, string> = {
  ':)': 'smile',
  '(:': 'smile',
  ':(': 'frown',
  '<3': 'heart',
  ':|': 'neutral',
  ':/': 'confused',
  ';)': 'wink',
  ':D': 'grinning',
  ':o': 'open_mouth',
  ':O': 'open_mouth',
  ':p': 'stuck_out_tongue',
  ':P': 'stuck_out_tongue',
};
