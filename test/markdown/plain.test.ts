import t from 'tap';
import { renderFully, renderMarkdown } from '../../src/markdown/index.js';
import { makeCtx } from './fixtures/context.js';

// renderMarkdown renders plain one-line text without the pipeline; whatever it takes that
// shortcut for must come out exactly as the whole pipeline renders it.
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
