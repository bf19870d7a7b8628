/**
 * Unicode emoji names and codes, built once from emoji-datasource-google (the data set the
 * reference builds its own table from).
 *
 * Codes follow the reference's encoding: lowercase hex code points joined by "-", at least four
 * digits each, with every U+FE0F variation selector removed ("2764", "0023-20e3"). Names are the
 * data set's short names with "-" turned into "_" (the reference's spelling: "woman_shrugging");
 * the first short name is the canonical one. Skin-tone components are left out, as the reference
 * does. The reference curates its own names on top of the same images, so a few names differ:
 * see docs/markdown.md.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

interface DataSourceEmoji {
  unified: string;
  short_names: string[];
  category: string;
  has_img_google: boolean;
}

export interface EmojiTables {
  /** name -> code */
  nameToCode: Map<string, string>;
  /** code -> canonical name */
  codeToName: Map<string, string>;
  /** code -> all names, canonical first (the shape of the reference's `code_to_names`) */
  codeToNames: Map<string, string[]>;
}

let tables: EmojiTables | undefined;

export function emojiTables(): EmojiTables {
  if (tables) return tables;
  // Read, not require()d: require would keep the parsed 1.3 MB data set in its module cache for
  // the life of the process, and only the tables below are needed once they are built.
  const path = createRequire(import.meta.url).resolve('emoji-datasource-google/emoji.json');
  const data = JSON.parse(readFileSync(path, 'utf8')) as DataSourceEmoji[];
  const nameToCode = new Map<string, string>();
  const codeToName = new Map<string, string>();
  const codeToNames = new Map<string, string[]>();
  for (const entry of data) {
    if (entry.category === 'Component' || !entry.has_img_google) continue;
    const code = unifiedToCode(entry.unified);
    if (codeToName.has(code)) continue;
    const names: string[] = [];
    for (const raw of entry.short_names) {
      const name = /^[+-]/.test(raw) ? raw : raw.replace(/-/g, '_');
      if (nameToCode.has(name) || names.includes(name)) continue;
      nameToCode.set(name, code);
      names.push(name);
    }
    if (names.length === 0) continue;
    codeToName.set(code, names[0]);
    codeToNames.set(code, names);
  }
  tables = { nameToCode, codeToName, codeToNames };
  return tables;
}

/** Where POST /register's server_emoji_data_url points (the reference's path); src/front serves it. */
export const EMOJI_API_PATH = '/static/generated/emoji/emoji_api.json';

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

function unifiedToCode(unified: string): string {
  return unified
    .toLowerCase()
    .split('-')
    .filter((part) => part !== 'fe0f')
    .map((part) => part.padStart(4, '0'))
    .join('-');
}

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

/** The emoticons the reference translates when the sender's translate_emoticons is on. */
export const EMOTICONS: Record<string, string> = {
  ':)': '1f642',
  '(:': '1f642',
  ':(': '1f641',
  '<3': '2764',
  ':|': '1f610',
  ':/': '1f615',
  ';)': '1f609',
  ':D': '1f600',
  ':o': '1f62e',
  ':O': '1f62e',
  ':p': '1f61b',
  ':P': '1f61b',
};
