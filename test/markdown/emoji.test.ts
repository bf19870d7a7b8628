import t from 'tap';
import { emojiTables } from '../../src/markdown/index.js';
import { runCases } from './fixtures/context.js';

const span = (code: string, name: string) =>
  `<span aria-label="${name.replace(/_/g, ' ')}" class="emoji emoji-${code}" role="img" title="${name.replace(/_/g, ' ')}">:${name}:</span>`;

t.test('renderMarkdown: emoji', async (t) => {
  runCases(t, [
    { name: 'by name', input: ':airplane:', html: `<p>${span('2708', 'airplane')}</p>` },
    { name: 'any alias', input: ':poop:', html: `<p>${span('1f4a9', 'poop')}</p>` },
    { name: 'inside strong', input: '**:smile:**', html: `<p><strong>${span('1f604', 'smile')}</strong></p>` },
    {
      name: 'adjacent names and text',
      input: ':cat:hello:dog::rabbit:',
      html: `<p>${span('1f431', 'cat')}hello${span('1f436', 'dog')}${span('1f430', 'rabbit')}</p>`,
    },
    { name: 'unknown names stay text', input: 'x::y::z :wasted waste: :fakeemoji:', html: '<p>x::y::z :wasted waste: :fakeemoji:</p>' },
    { name: 'skin tones alone are not emoji', input: ':skin-tone-2:', html: '<p>:skin-tone-2:</p>' },
    { name: 'unicode emoji', input: '\u{1f4a9}\u{1f4a9}', html: `<p>${span('1f4a9', 'hankey')}${span('1f4a9', 'hankey')}</p>` },
    { name: 'unicode emoji inside a word', input: 'Extra\u{1f47d}Terrestrial', html: `<p>Extra${span('1f47d', 'alien')}Terrestrial</p>` },
    { name: 'variation selectors are dropped from the code', input: 'up \u2b06\ufe0f', html: `<p>up ${span('2b06', 'arrow_up')}</p>` },
    { name: 'ZWJ sequences', input: '\u{1f937}\u200d\u2640\ufe0f', html: `<p>${span('1f937-200d-2640', 'woman_shrugging')}</p>` },
    { name: 'keycaps', input: '#\ufe0f\u20e3', html: `<p>${span('0023-20e3', 'hash')}</p>` },
    { name: 'digits and arrows stay text', input: '1 2 3 \u2194', html: '<p>1 2 3 \u2194</p>' },
    {
      name: 'the zulip emoji',
      input: ':zulip:',
      html: '<p><img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip"></p>',
    },
    {
      name: 'realm emoji',
      input: ':green_tick: :gone:',
      ctx: {
        realmEmoji: {
          green_tick: { id: '1', sourceUrl: '/user_avatars/2/emoji/images/1.png' },
          gone: { id: '2', sourceUrl: '/user_avatars/2/emoji/images/2.png', deactivated: true },
        },
      },
      html: '<p><img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/1.png" title="green tick"> :gone:</p>',
    },
  ]);
});

t.test('renderMarkdown: emoticons', async (t) => {
  const smile = span('1f642', 'slightly_smiling_face');
  runCases(t, [
    { name: 'off by default', input: ':)', html: '<p>:)</p>' },
    { name: 'translated when the sender wants it', input: ':)', ctx: { translateEmoticons: true }, html: `<p>${smile}</p>` },
    {
      name: 'several kinds',
      input: ':) foo :( bar <3 with space : )',
      ctx: { translateEmoticons: true },
      html: `<p>${smile} foo ${span('1f641', 'slightly_frowning_face')} bar ${span('2764', 'heart')} with space : )</p>`,
    },
    { name: 'not inside words', input: 'a:) ;)b', ctx: { translateEmoticons: true }, html: '<p>a:) ;)b</p>' },
    { name: 'between punctuation', input: 'Translate this !:)?', ctx: { translateEmoticons: true }, html: `<p>Translate this !${smile}?</p>` },
    { name: 'not in code', input: '`:)`', ctx: { translateEmoticons: true }, html: '<p><code>:)</code></p>' },
  ]);
});

t.test('emojiTables: the data the renderer uses', async (t) => {
  const { nameToCode, codeToName, codeToNames } = emojiTables();
  t.ok(nameToCode.size > 1800 && codeToName.size > 1800, 'the whole data set, not a sample');
  t.equal(nameToCode.get('+1'), '1f44d', '+1 keeps its sign');
  t.equal(codeToName.get('2764'), 'heart', 'codes have no FE0F');
  t.same(codeToNames.get('1f4a9'), ['hankey', 'poop', 'shit'], 'canonical name first, then aliases');
  t.notOk([...nameToCode.values()].some((code) => /1f3f[b-f]/.test(code)), 'no skin-tone variants');
});
