import t from 'tap';
import { runCases } from './fixtures/context.js';

/**
 * Cases from the reference's own fixtures (zerver/tests/fixtures/markdown_test_cases.json),
 * input and expected HTML copied as they are there, under their names there.
 */
const GOOGLE = 'https://www.google.com/images/srpr/logo4w.png';
const GOOGLE_IMG =
  '<img data-src-fullsize="/thumbnail?url=https%3A%2F%2Fwww.google.com%2Fimages%2Fsrpr%2Flogo4w.png&amp;size=full" src="/thumbnail?url=https%3A%2F%2Fwww.google.com%2Fimages%2Fsrpr%2Flogo4w.png&amp;size=thumbnail">';

t.test('renderMarkdown: quotes, whitespace and lists as the reference fixtures have them', async (t) => {
  runCases(t, [
    { name: 'non_empty_blockquote', input: '>\n>\ntext', html: '<blockquote>\n<p>text</p>\n</blockquote>' },
    { name: 'empty_single_blockquote', input: '>', html: '<p>&gt;</p>' },
    { name: 'empty_multiple_blockquote', input: '>>>>>', html: '<blockquote>\n<blockquote>\n<blockquote>\n<blockquote>\n<p>&gt;</p>\n</blockquote>\n</blockquote>\n</blockquote>\n</blockquote>' },
    { name: 'multiple_blockquote_with_angular_bracket', input: '> Hello World!\n\n> Hello Universe!', html: '<blockquote>\n<p>Hello World!</p>\n</blockquote>\n<blockquote>\n<p>Hello Universe!</p>\n</blockquote>' },
    {
      name: 'multiple_blockquote_with_quote_and_reply',
      input: 'Hamlet said:\n~~~quote\nCan we talk ?\n~~~\n> Yes !!\n\nWelcome to Open Source.',
      html: '<p>Hamlet said:</p>\n<blockquote>\n<p>Can we talk ?</p>\n</blockquote>\n<blockquote>\n<p>Yes !!</p>\n</blockquote>\n<p>Welcome to Open Source.</p>',
    },
    {
      name: 'blockquote_inline_image',
      input: '>Google logo today:\n>https://www.google.com/images/srpr/logo4w.png\n>Kinda boring',
      html: `<blockquote>\n<p>Google logo today:<br>\n<a href="${GOOGLE}">${GOOGLE}</a><br>\nKinda boring</p>\n</blockquote>`,
    },
    { name: 'nl2br', input: 'test\nbar', html: '<p>test<br>\nbar</p>' },
    { name: 'nl2br_trailing_space', input: 'test  ', html: '<p>test  </p>' },
    {
      name: 'ulist_codeblock_interference',
      input: "* One \n  * Two\n\n    Two continued\n    This shouldn't be a code block\n",
      html: "<ul>\n<li>One <ul>\n<li>\n<p>Two</p>\n<p>Two continued<br>\nThis shouldn't be a code block</p>\n</li>\n</ul>\n</li>\n</ul>",
    },
    {
      name: 'ulist_with_inline_code',
      input:
        'gonna take a break for a bit--all yours if you want to play around too. what I did:\n\n* install cmake\n* git clone zulip desktop\n* run `cmake-gui ..` in `c:\\zulip\\zulip-desktop\\msvcbuild`\n' +
        '* hit configure/generate until it generated the msvc project (had to make a fix to some cmake files)\n* opened vs2013 \n* tried to build\n',
      html:
        '<p>gonna take a break for a bit--all yours if you want to play around too. what I did:</p>\n<ul>\n<li>install cmake</li>\n<li>git clone zulip desktop</li>\n' +
        '<li>run <code>cmake-gui ..</code> in <code>c:\\zulip\\zulip-desktop\\msvcbuild</code></li>\n<li>hit configure/generate until it generated the msvc project (had to make a fix to some cmake files)</li>\n' +
        '<li>opened vs2013 </li>\n<li>tried to build</li>\n</ul>',
    },
    {
      name: 'ulist_nested_ulist_two_space_indent',
      input: 'Nested list\n* I am outer list\n  * I am inner nested list first item\n  * I am inner nested list second item',
      html: '<p>Nested list</p>\n<ul>\n<li>I am outer list<ul>\n<li>I am inner nested list first item</li>\n<li>I am inner nested list second item</li>\n</ul>\n</li>\n</ul>',
    },
  ]);
});

t.test('renderMarkdown: inline image previews as the reference fixtures have them', async (t) => {
  runCases(t, [
    {
      name: 'inline_image',
      input: `Google logo today: ${GOOGLE}\nKinda boring`,
      html: `<p>Google logo today: <a href="${GOOGLE}">${GOOGLE}</a><br>\nKinda boring</p>\n<div class="message_inline_image"><a href="${GOOGLE}">${GOOGLE_IMG}</a></div>`,
      result: { hasImage: true, hasLink: true },
    },
    {
      name: 'two_inline_images',
      input: `Google logo today: ${GOOGLE}\nKinda boring\nZulip logo: https://zulip.com/static/images/logo/zulip-icon-128x128.png`,
      html:
        `<p>Google logo today: <a href="${GOOGLE}">${GOOGLE}</a><br>\nKinda boring<br>\nZulip logo: <a href="https://zulip.com/static/images/logo/zulip-icon-128x128.png">https://zulip.com/static/images/logo/zulip-icon-128x128.png</a></p>\n` +
        `<div class="message_inline_image"><a href="${GOOGLE}">${GOOGLE_IMG}</a></div><div class="message_inline_image"><a href="https://zulip.com/static/images/logo/zulip-icon-128x128.png">` +
        '<img data-src-fullsize="/thumbnail?url=https%3A%2F%2Fzulip.com%2Fstatic%2Fimages%2Flogo%2Fzulip-icon-128x128.png&amp;size=full" src="/thumbnail?url=https%3A%2F%2Fzulip.com%2Fstatic%2Fimages%2Flogo%2Fzulip-icon-128x128.png&amp;size=thumbnail"></a></div>',
    },
    {
      name: 'deduplicate_inline_previews',
      input: `Google logo today: ${GOOGLE}\nKinda boringGoogle logo today: ${GOOGLE}\nKinda boring`,
      html:
        `<p>Google logo today: <a href="${GOOGLE}">${GOOGLE}</a><br>\nKinda boringGoogle logo today: <a href="${GOOGLE}">${GOOGLE}</a><br>\nKinda boring</p>\n` +
        `<div class="message_inline_image"><a href="${GOOGLE}">${GOOGLE_IMG}</a></div>`,
    },
    {
      name: 'bulleted_list_inlining',
      input: `* Google?\n* Google. ${GOOGLE}\n* Google!`,
      html: `<ul>\n<li>Google?</li>\n<li>Google. <a href="${GOOGLE}">${GOOGLE}</a><div class="message_inline_image"><a href="${GOOGLE}">${GOOGLE_IMG}</a></div></li>\n<li>Google!</li>\n</ul>`,
    },
    { name: 'only_inline_image', input: GOOGLE, html: `<div class="message_inline_image"><a href="${GOOGLE}">${GOOGLE_IMG}</a></div>` },
    {
      name: 'only_named_inline_image',
      input: `[Google link](${GOOGLE})`,
      html: `<p><a href="${GOOGLE}">Google link</a></p>\n<div class="message_inline_image"><a href="${GOOGLE}" title="Google link">${GOOGLE_IMG}</a></div>`,
    },
    {
      name: 'spoiler_with_inline_image',
      input: '```spoiler header\nContent http://example.com/image.png\n```',
      html:
        '<div class="spoiler-block"><div class="spoiler-header">\n<p>header</p>\n</div><div class="spoiler-content" aria-hidden="true">\n' +
        '<p>Content <a href="http://example.com/image.png">http://example.com/image.png</a></p>\n' +
        '<div class="message_inline_image"><a href="http://example.com/image.png"><img data-src-fullsize="/thumbnail?url=http%3A%2F%2Fexample.com%2Fimage.png&amp;size=full" src="/thumbnail?url=http%3A%2F%2Fexample.com%2Fimage.png&amp;size=thumbnail"></a></div></div></div>',
    },
    { name: 'only_non_image_link', input: 'https://github.com', html: '<p><a href="https://github.com">https://github.com</a></p>', result: { hasImage: false } },
  ]);
});

t.test('renderMarkdown: links to the realm become relative, as the reference fixtures have them', async (t) => {
  runCases(t, [
    { name: 'fragment_link', input: '[foo](http://zulip.testserver/#narrow/stream/1-Denmark)', html: '<p><a href="#narrow/stream/1-Denmark">foo</a></p>' },
    { name: 'not_fragment_link', input: '[foo](http://zulip.testserver/https://example.com)', html: '<p><a href="http://zulip.testserver/https://example.com">foo</a></p>' },
    {
      name: 'linkify_tests: a bare link into the realm',
      input: 'http://zulip.testserver/#narrow/stream/1-Denmark',
      html: '<p><a href="#narrow/stream/1-Denmark">http://zulip.testserver/#narrow/stream/1-Denmark</a></p>',
    },
  ]);
});
