#!/usr/bin/env node
/**
 * Converts the reference server's curated emoji name table (zulip/zulip
 * tools/setup/emoji/emoji_names.py, Apache-2.0) into src/markdown/tables/emoji-names.json, the one
 * emoji name table this server uses.
 *
 *   node src/markdown/tables/emoji-names-to-json.mjs <path to emoji_names.py> <commit it came from>
 *
 * The Python file is a single dict literal, `code -> {"canonical_name", "aliases"}`. It is read
 * with a small parser for the literals it uses (double-quoted strings, dicts, lists), not with a
 * regular expression per line, since the formatter wraps long entries over several lines. The
 * output keeps the file's order as an array of [code, canonical name, aliases]: a JSON object
 * would put integer-like codes ("2764") first, and order decides which entry wins if two ever
 * share a name.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [input, commit] = process.argv.slice(2);
if (!input || !/^[0-9a-f]{40}$/.test(commit ?? '')) {
  console.error('usage: node src/markdown/tables/emoji-names-to-json.mjs <emoji_names.py> <40-hex commit>');
  process.exit(2);
}
const text = readFileSync(input, 'utf8');
const start = text.indexOf('{', text.indexOf('EMOJI_NAME_MAPS'));
if (start < 0) throw new Error('no EMOJI_NAME_MAPS dict in ' + input);

let i = start;
const skip = () => {
  while (i < text.length && /[\s,]/.test(text[i])) i++;
  if (text[i] === '#') {
    while (i < text.length && text[i] !== '\n') i++;
    skip();
  }
};
function value() {
  skip();
  const ch = text[i];
  if (ch === '"') {
    const end = text.indexOf('"', i + 1);
    // JSON.parse handles the escapes Python and JSON share (the file uses none today).
    const s = JSON.parse(text.slice(i, end + 1));
    i = end + 1;
    return s;
  }
  if (ch === '[') {
    i++;
    const out = [];
    for (skip(); text[i] !== ']'; skip()) out.push(value());
    i++;
    return out;
  }
  if (ch === '{') {
    i++;
    const out = new Map();
    for (skip(); text[i] !== '}'; skip()) {
      const key = value();
      skip();
      if (text[i] !== ':') throw new Error(`expected ':' at offset ${i}`);
      i++;
      out.set(key, value());
    }
    i++;
    return out;
  }
  throw new Error(`unexpected ${JSON.stringify(ch)} at offset ${i}`);
}

const maps = value();
const entries = [];
const names = new Set();
for (const [code, info] of maps) {
  if (!/^[0-9a-f]{4,}(?:-[0-9a-f]{4,})*$/.test(code)) throw new Error(`odd code ${code}`);
  const canonical = info.get('canonical_name');
  const aliases = info.get('aliases');
  for (const name of [canonical, ...aliases]) {
    if (names.has(name)) console.warn(`name ${name} appears twice; the later entry wins, as in the reference`);
    names.add(name);
  }
  entries.push([code, canonical, aliases]);
}

const out = join(dirname(fileURLToPath(import.meta.url)), 'emoji-names.json');
const lines = entries.map((e) => '    ' + JSON.stringify(e));
const json =
  '{\n' +
  `  "source": ${JSON.stringify(`github.com/zulip/zulip, commit ${commit}, tools/setup/emoji/emoji_names.py (EMOJI_NAME_MAPS)`)},\n` +
  '  "license": "Apache-2.0",\n' +
  '  "format": "[code, canonical name, aliases] in the source order; codes are lowercase hex code points joined by -, without U+FE0F",\n' +
  '  "emoji": [\n' +
  lines.join(',\n') +
  '\n  ]\n}\n';
writeFileSync(out, json);
console.log(`${entries.length} emoji, ${names.size} names -> ${out}`);
