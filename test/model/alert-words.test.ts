import t from 'tap';
import { AlertWordMatcher } from '../../src/model/alert-words.js';

t.test('alert words match whole words, case-insensitively, as the reference does', async (t) => {
  const m = new AlertWordMatcher([
    [1, ['Foo']],
    [2, ['foo bar', 'baz']],
    [3, ['C++']],
  ]);
  const hits = (text: string) => [...m.match(text)].sort();
  t.same(hits('foo'), [1], 'the whole text');
  t.same(hits('say FOO now'), [1], 'any case');
  t.same(hits('food'), [], 'not inside a longer word');
  t.same(hits('xfoo'), [], 'not after a letter, even at the second position');
  t.same(hits('snafoo'), [], 'not at the end of a word');
  t.same(hits('(foo)'), [1], 'inside parentheses');
  t.same(hits('"foo'), [1], 'after a quote');
  t.same(hits('"foo"'), [], 'not before a double quote (the reference allows only the two-character `",`)');
  t.same(hits("'foo'"), [1], 'in single quotes');
  t.same(hits('**foo**'), [1], 'in bold');
  t.same(hits('`foo`'), [1], 'in code');
  t.same(hits('> foo'), [1], 'in a quote');
  t.same(hits('foo!'), [1], 'before an exclamation mark');
  t.same(hits('foo-bar'), [], 'not before a dash');
  t.same(hits('foo/bar'), [], 'not before a slash');
  t.same(hits('line\nfoo\nnext'), [1], 'on a line of its own');
  t.same(hits('a foo bar b'), [1, 2], 'a phrase, and a word inside it, both match');
  t.same(hits('foo baz'), [1, 2], 'each user once');
  t.same(hits('I like c++.'), [3], 'words with symbols');
  t.same(hits('foofoo foo'), [1], 'a later occurrence counts when an earlier one does not');
  t.equal(new AlertWordMatcher([]).empty, true, 'a realm without words has an empty matcher');
  t.same([...new AlertWordMatcher([]).match('anything')], [], 'which matches nothing');
});
