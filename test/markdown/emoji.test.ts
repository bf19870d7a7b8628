import t from 'tap';
import { emojiTables } from '../../src/markdown/index.js';
import { runCases } from './fixtures/context.js';

/**
 * Expected HTML copied from the reference's own fixtures (zerver/tests/fixtures/
 * markdown_test_cases.json: star_emoji, many_emoji, emojis_without_space, unicode_emoji,
 * emoji_sequence_*, unrecognized_emoji_sequence_*, translate_emoticons*, ...), named after them.
 */
t.test('renderMarkdown: emoji names (the reference fixtures)', async (t) => {
  runCases(t, [
    {
      name: 'star_emoji',
      input: '**:smile:**',
      html: '<p><strong><span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span></strong></p>',
    },
    {
      name: 'many_emoji',
      input: 'test :smile: again :poop:\n:) foo:)bar x::y::z :wasted waste: :fakeemojithisshouldnotrender:',
      html:
        '<p>test <span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span> again <span aria-label="poop" class="emoji emoji-1f4a9" role="img" title="poop">:poop:</span><br>\n' +
        ':) foo:)bar x::y::z :wasted waste: :fakeemojithisshouldnotrender:</p>',
    },
    {
      name: 'random_emoji_1',
      input: ':airplane:',
      html: '<p><span aria-label="airplane" class="emoji emoji-2708" role="img" title="airplane">:airplane:</span></p>',
    },
    {
      name: 'zulip_emoji',
      input: ':zulip:',
      html: '<p><img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip"></p>',
    },
    {
      name: 'emojis_without_space',
      input: ':cat:hello:dog::rabbit:',
      html:
        '<p><span aria-label="cat" class="emoji emoji-1f408" role="img" title="cat">:cat:</span>hello<span aria-label="dog" class="emoji emoji-1f415" role="img" title="dog">:dog:</span>' +
        '<span aria-label="rabbit" class="emoji emoji-1f407" role="img" title="rabbit">:rabbit:</span></p>',
    },
    {
      name: 'new_emoji_test',
      input: ':avocado:, :kiwi:, :selfie:, :gear:, :comet:, :gold:',
      html:
        '<p><span aria-label="avocado" class="emoji emoji-1f951" role="img" title="avocado">:avocado:</span>, <span aria-label="kiwi" class="emoji emoji-1f95d" role="img" title="kiwi">:kiwi:</span>, ' +
        '<span aria-label="selfie" class="emoji emoji-1f933" role="img" title="selfie">:selfie:</span>, <span aria-label="gear" class="emoji emoji-2699" role="img" title="gear">:gear:</span>, ' +
        '<span aria-label="comet" class="emoji emoji-2604" role="img" title="comet">:comet:</span>, <span aria-label="gold" class="emoji emoji-1f947" role="img" title="gold">:gold:</span></p>',
    },
    {
      name: 'emoji_pipeline_newline',
      input: 'The winner is:\nsmiley:smiley:',
      html: '<p>The winner is:<br>\nsmiley<span aria-label="smiley" class="emoji emoji-1f603" role="img" title="smiley">:smiley:</span></p>',
    },
    { name: 'emoji_pipeline_emphasis', input: 'Testing *:smiley*: :sm*iley*: Testing', html: '<p>Testing <em>:smiley</em>: :sm<em>iley</em>: Testing</p>' },
    { name: 'skin_tones_are_banned', input: ':skin-tone-2: :skin-tone-3:', html: '<p>:skin-tone-2: :skin-tone-3:</p>' },
    { name: 'fried_egg_emoji_nonexistent', input: 'new :fried_egg: emoji is banned for now.', html: '<p>new :fried_egg: emoji is banned for now.</p>' },
    {
      name: 'emojis_with_zwj_are_banned',
      input: 'Emojis like :man-girl-girl: which have ZWJ are banned for now.',
      html: '<p>Emojis like :man-girl-girl: which have ZWJ are banned for now.</p>',
    },
    { name: 'not_emoji', input: ':not_an_emoji:', html: '<p>:not_an_emoji:</p>' },
    {
      name: "the reference's names and aliases (issue 14): thumbs_up, +1, big_smile, check",
      input: ':thumbs_up: :+1: :big_smile: :check:',
      html:
        '<p><span aria-label="thumbs up" class="emoji emoji-1f44d" role="img" title="thumbs up">:thumbs_up:</span> ' +
        '<span aria-label="+1" class="emoji emoji-1f44d" role="img" title="+1">:+1:</span> ' +
        '<span aria-label="big smile" class="emoji emoji-1f604" role="img" title="big smile">:big_smile:</span> ' +
        '<span aria-label="check" class="emoji emoji-2705" role="img" title="check">:check:</span></p>',
    },
  ]);
});

t.test('renderMarkdown: Unicode emoji (the reference fixtures)', async (t) => {
  runCases(t, [
    {
      name: 'two_unicode_emoji',
      input: '\ud83d\udca9\ud83d\udca9',
      html: '<p><span aria-label="poop" class="emoji emoji-1f4a9" role="img" title="poop">:poop:</span><span aria-label="poop" class="emoji emoji-1f4a9" role="img" title="poop">:poop:</span></p>',
    },
    {
      name: 'miscellaneous_symbols_and_pictographs',
      input: 'Merry Christmas!!\ud83c\udf84',
      html: '<p>Merry Christmas!!<span aria-label="holiday tree" class="emoji emoji-1f384" role="img" title="holiday tree">:holiday_tree:</span></p>',
    },
    {
      name: 'miscellaneous_and_dingbats_emoji',
      input: '\u2693\u2797',
      html: '<p><span aria-label="anchor" class="emoji emoji-2693" role="img" title="anchor">:anchor:</span><span aria-label="division" class="emoji emoji-2797" role="img" title="division">:division:</span></p>',
    },
    {
      name: 'miscellaneous_symbols_and_arrows',
      input: 'Black upward arrow \u2b06\ufe0f',
      html: '<p>Black upward arrow <span aria-label="up" class="emoji emoji-2b06" role="img" title="up">:up:</span></p>',
    },
    {
      name: 'unicode_emoji_without_space',
      input: 'Extra\ud83d\udc7dTerrestrial',
      html: '<p>Extra<span aria-label="alien" class="emoji emoji-1f47d" role="img" title="alien">:alien:</span>Terrestrial</p>',
    },
    {
      name: 'emoji_sequence_one',
      input: '\u{1f937}\u200d\u2640\ufe0f',
      html: '<p><span aria-label="woman shrugging" class="emoji emoji-1f937-200d-2640" role="img" title="woman shrugging">:woman_shrugging:</span></p>',
    },
    {
      name: 'emoji_sequence_two',
      input: '\u{1f441}\u200d\u{1f5e8} #\ufe0f\u20e3',
      html:
        '<p><span aria-label="eye in speech bubble" class="emoji emoji-1f441-200d-1f5e8" role="img" title="eye in speech bubble">:eye_in_speech_bubble:</span> ' +
        '<span aria-label="hash" class="emoji emoji-0023-20e3" role="img" title="hash">:hash:</span></p>',
    },
    { name: 'unrecognized_emoji_sequence_one', input: 'pheonix bird from 15.1: \u{1f426}\u200d\u{1f525}', html: '<p>pheonix bird from 15.1: \u{1f426}\u200d\u{1f525}</p>' },
    { name: 'unrecognized_emoji_sequence_two', input: 'lime from 15.1: \u{1f34b}\u200d\u{1f7e9}', html: '<p>lime from 15.1: \u{1f34b}\u200d\u{1f7e9}</p>' },
    {
      name: 'unrecognized_emoji_sequence_three',
      input: 'normal lemon \u{1f34b}, purple lemon? \u{1f34b}\u200d\u{1f7ea}',
      html: '<p>normal lemon <span aria-label="lemon" class="emoji emoji-1f34b" role="img" title="lemon">:lemon:</span>, purple lemon? \u{1f34b}\u200d\u{1f7ea}</p>',
    },
    { name: 'digits and arrows stay text', input: '1 2 3 \u2194', html: '<p>1 2 3 \u2194</p>' },
  ]);
});

t.test('renderMarkdown: emoticons (the reference fixtures)', async (t) => {
  const smile = '<span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span>';
  runCases(t, [
    { name: 'translate_emoticons_not_enabled', input: ':)', html: '<p>:)</p>' },
    { name: 'translate_emoticons_enabled', input: ':)', ctx: { translateEmoticons: true }, html: `<p>${smile}</p>` },
    {
      name: 'translate_emoticons',
      input: ':) foo :( bar <3 with space : ) real emoji :smile:',
      ctx: { translateEmoticons: true },
      html:
        `<p>${smile} foo <span aria-label="frown" class="emoji emoji-1f641" role="img" title="frown">:frown:</span> bar ` +
        `<span aria-label="heart" class="emoji emoji-2764" role="img" title="heart">:heart:</span> with space : ) real emoji ${smile}</p>`,
    },
    { name: 'translate_emoticons_whitespace', input: 'a:) ;)b', ctx: { translateEmoticons: true }, html: '<p>a:) ;)b</p>' },
    { name: 'translate_emoticons_in_code', input: '`:)`', ctx: { translateEmoticons: true }, html: '<p><code>:)</code></p>' },
    { name: 'translate_emoticons_at_sentence_end', input: 'Translate this :).', ctx: { translateEmoticons: true }, html: `<p>Translate this ${smile}.</p>` },
    { name: 'translate_emoticons_between_symbols', input: 'Translate this !:)?', ctx: { translateEmoticons: true }, html: `<p>Translate this !${smile}?</p>` },
  ]);
});

t.test('renderMarkdown: custom emoji', async (t) => {
  runCases(t, [
    {
      name: "active custom emoji render as the reference's img; deactivated ones stay text",
      input: ':green_tick: :gone:',
      ctx: {
        realmEmoji: {
          green_tick: { id: '1', sourceUrl: '/user_avatars/2/emoji/images/1.png' },
          gone: { id: '2', sourceUrl: '/user_avatars/2/emoji/images/2.png', deactivated: true },
        },
      },
      html: '<p><img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/1.png" title="green tick"> :gone:</p>',
    },
    {
      name: 'a custom emoji overrides the built-in emoji of its name',
      input: ':smile:',
      ctx: { realmEmoji: { smile: { id: '3', sourceUrl: '/user_avatars/2/emoji/images/abc.png' } } },
      html: '<p><img alt=":smile:" class="emoji" src="/user_avatars/2/emoji/images/abc.png" title="smile"></p>',
    },
  ]);
});

t.test('emojiTables: the reference name table', async (t) => {
  const { nameToCode, codeToName, codeToNames } = emojiTables();
  t.equal(codeToName.size, 1847, 'every emoji of the table');
  t.equal(nameToCode.get('+1'), '1f44d', '+1 keeps its sign');
  t.equal(nameToCode.get('thumbs_up'), '1f44d', 'aliases map to their code');
  t.equal(nameToCode.get('smile'), '1f642', ':smile: is the slightly smiling face, as in the reference');
  t.equal(nameToCode.get('cat'), '1f408', 'cat is the whole cat');
  t.equal(codeToName.get('2764'), 'heart', 'codes have no FE0F');
  t.same(codeToNames.get('1f44d'), ['+1', 'thumbs_up', 'like'], 'canonical name first, then aliases');
  t.notOk(nameToCode.has('hankey'), "emoji-datasource's names are not the reference's");
  t.notOk([...nameToCode.values()].some((code) => /1f3f[b-f]/.test(code)), 'no skin-tone variants');
});
