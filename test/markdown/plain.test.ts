import t, { type Test } from 'tap';
import { renderFully, renderMarkdown, renderSimple } from '../../src/markdown/index.js';
import { makeCtx } from './fixtures/context.js';

// renderMarkdown renders one line of plain words, strong and em spans and code spans without
// the pipeline; whatever it takes that shortcut for must come out exactly as the whole pipeline
// renders it.
const ctx = makeCtx({ alertWords: (text) => (/\bkoala\b/i.test(text) ? [4] : []), translateEmoticons: true });

t.test('plain text: the shortcut and the pipeline agree', async (t) => {
  const fixed = ['d 5', 'hello world', "it's fine", 'a,b', '1', '100', 'Koala sighted', 'one two, three', "''", 'A1 b2 C3', 'a  b', 'a ', ' a', 'www', 'http', 'example com'];
  // A small alphabet, so that words, spaces, commas and apostrophes meet in every order, and
  // now and then a character that is not plain (which must take the pipeline).
  const plain = "abkoAZ019 ,'";
  const other = ['.', ':', '@', '#', '*', '_', '-', '\n', '<', '&', '"', ')', '(', ';', '~', '`', '>', '|', '$', '!', '?', '/', '\t', 'é', '😀'];
  let seed = 31;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const inputs = [...fixed];
  for (let i = 0; i < 3000; i++) {
    let s = '';
    const n = 1 + Math.floor(random() * 12);
    for (let k = 0; k < n; k++) s += random() < 0.05 ? other[Math.floor(random() * other.length)] : plain[Math.floor(random() * plain.length)];
    inputs.push(s);
  }
  let mismatches = 0;
  for (const input of inputs) {
    const fast = renderMarkdown(input, ctx);
    const full = renderFully(input, ctx);
    if (JSON.stringify(fast) !== JSON.stringify(full)) {
      mismatches++;
      t.same(fast, full, `same result for ${JSON.stringify(input)}`);
    }
  }
  t.equal(mismatches, 0, `${inputs.length} inputs render the same both ways`);
});

/** Runs `inputs` through both paths; returns how many took the shortcut. */
function compare(t: Test, inputs: string[]): number {
  let simple = 0;
  let mismatches = 0;
  for (const input of inputs) {
    const fast = renderSimple(input, ctx);
    if (fast === null) continue;
    simple++;
    const full = renderFully(input, ctx);
    if (JSON.stringify(fast) !== JSON.stringify(full)) {
      mismatches++;
      if (mismatches <= 20) t.same(fast, full, `same result for ${JSON.stringify(input)}`);
    }
  }
  t.equal(mismatches, 0, `${simple} of ${inputs.length} inputs took the shortcut and render as the pipeline does`);
  return simple;
}

t.test('inline markup: the shortcut and the pipeline agree', async (t) => {
  const fixed = [
    'A load-test message with **some** markup', 'a **b** c', '*a* b', '`a b` c', '**a b**', "**it's**", '*a,b*', '`x`', 'a `b` **c** *d*',
    '**a** **b**', "`'a'`", '**1**', '*1*', 'Done. Next?', 'wow!', 'e-mail me', '`a.b`', '`a!`', '1. first', '12. x', '1.5 more', 'a-', 'x - y',
    '**a**b', 'a*b*c', '***a***', '** a**', '**a **', '* a*', '``a``', '`a``', '**a*', '*a**', '**a\nb**', 'a -- b', '--a', 'a--b', '`-`', '`--`',
  ];
  t.same(renderSimple('A load-test message with **some** markup', ctx)?.html, '<p>A load-test message with <strong>some</strong> markup</p>', "the bench's message takes the shortcut");
  compare(t, fixed);
  // Words, spaces and the markup characters meet in every order, at a rate that makes well-
  // formed spans common; now and then a character that is not plain (which must take the pipeline).
  const alphabet = ["a", "b", "Z", "0", "9", " ", " ", ",", "'", "-", ".", "!", "?", "*", "*", "**", "`", "ko", "ala"];
  const other = [':', '@', '#', '_', '\n', '<', '&', '"', ')', '(', ';', '~', '>', '|', '$', '/', '\t', '[', ']', 'é', '😀'];
  // mulberry32: a small seeded generator whose low bits are as random as its high ones.
  let seed = 7;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const inputs: string[] = [];
  for (let i = 0; i < 20000; i++) {
    let s = '';
    const n = 1 + Math.floor(random() * 14);
    for (let k = 0; k < n; k++) s += random() < 0.03 ? pick(other) : pick(alphabet);
    inputs.push(s);
  }
  // Well-formed lines, built from the shortcut's own grammar, so that long ones are tried too,
  // and each of them once more with one character inserted, dropped or replaced: the near misses
  // at the edge of the grammar.
  const words = ['load-test', "it's", 'a,b', 'x', '42', 'end.', 'why?', 'yes!', 'koala', '1'];
  for (let i = 0; i < 4000; i++) {
    const tokens: string[] = [];
    const n = 1 + Math.floor(random() * 8);
    for (let k = 0; k < n; k++) {
      const w = pick(words);
      const bare = w.replace(/[.!?]$/, '');
      const r = random();
      tokens.push(r < 0.2 ? `**${bare}${random() < 0.3 ? ` ${pick(words).replace(/[.!?]$/, '')}` : ''}**` : r < 0.35 ? `*${bare}*` : r < 0.5 ? `\`${w}\`` : w);
    }
    const line = tokens.join(' ');
    inputs.push(line);
    const at = Math.floor(random() * (line.length + 1));
    const c = random() < 0.9 ? pick(alphabet) : pick(other);
    const edit = random();
    inputs.push(edit < 0.4 ? line.slice(0, at) + c + line.slice(at) : edit < 0.7 ? line.slice(0, at) + line.slice(at + 1) : line.slice(0, at) + c + line.slice(at + 1));
  }
  const simple = compare(t, inputs);
  t.ok(simple > 3000, `the shortcut is taken for well-formed lines (${simple})`);
  const marked = inputs.filter((input) => /[*`]/.test(input) && renderSimple(input, ctx) !== null).length;
  t.ok(marked > 1500, `${marked} of them with spans`);
});

t.test('inline markup: a long line that is almost simple is refused', async (t) => {
  for (const input of [`**${'a '.repeat(4000)}a`, `${'a '.repeat(4000)}a!!`, `*${'a'.repeat(9000)}`, `${'**a** '.repeat(1500)}*`]) {
    t.equal(renderSimple(input, ctx), null);
  }
});

t.test('plain text: alert words are still found', async (t) => {
  t.same(renderMarkdown('a koala here', ctx).alertedUserIds, [4]);
  t.equal(renderMarkdown('a koala here', ctx).html, '<p>a koala here</p>');
});

t.test('plain text: a realm with linkifiers always takes the pipeline', async (t) => {
  const withLinkifier = makeCtx({ linkifiers: [{ pattern: 'ABC(?P<id>[0-9]+)', urlTemplate: 'https://trac.example.com/ticket/{id}' }] });
  const r = renderMarkdown('see ABC123 now', withLinkifier);
  t.match(r.html, /<a href="https:\/\/trac\.example\.com\/ticket\/123"/);
  t.equal(r.hasLink, true);
});
