import t from 'tap';
import { runCases } from './fixtures/context.js';

/** The reference's preview markup (markdown_test_cases.json: inline_image, only_named_inline_image). */
const img = (url: string, title = '') => {
  const q = encodeURIComponent(url);
  return `<div class="message_inline_image"><a href="${url}"${title ? ` title="${title}"` : ''}><img data-src-fullsize="/thumbnail?url=${q}&amp;size=full" src="/thumbnail?url=${q}&amp;size=thumbnail"></a></div>`;
};

t.test('renderMarkdown: links', async (t) => {
  runCases(t, [
    { name: 'named link, no target or rel (as the reference)', input: '[hello](https://github.com)', html: '<p><a href="https://github.com">hello</a></p>', result: { hasLink: true } },
    { name: 'empty text shows the URL', input: '[  ](https://github.com)', html: '<p><a href="https://github.com">https://github.com</a></p>' },
    { name: 'link in bold', input: '**[Static types](https://blog.zulip.com/x)**', html: '<p><strong><a href="https://blog.zulip.com/x">Static types</a></strong></p>' },
    { name: 'tel and sms', input: '[call me](tel:+14155551234) [or not](sms:+14155551234)', html: '<p><a href="tel:+14155551234">call me</a> <a href="sms:+14155551234">or not</a></p>' },
    { name: 'link text is not parsed further', input: '[**x** :smile:](https://a.com)', html: '<p><a href="https://a.com">**x** :smile:</a></p>' },
    { name: 'no reference-style links', input: 'Hello [world]\n\n[world]: https://google.com', html: '<p>Hello [world]</p>\n<p>[world]: <a href="https://google.com">https://google.com</a></p>' },
    { name: 'no image syntax', input: '![x](https://a.com/y)', html: '<p>![x](<a href="https://a.com/y">https://a.com/y</a>)</p>' },
    { name: 'plain link', input: 'https://github.com', html: '<p><a href="https://github.com">https://github.com</a></p>', result: { hasLink: true, hasImage: false } },
    { name: 'no link, no flag', input: 'just words', html: '<p>just words</p>', result: { hasLink: false, hasImage: false, hasAttachment: false } },
  ]);
});

t.test('renderMarkdown: bare URLs', async (t) => {
  runCases(t, [
    { name: 'bare domain', input: 'with short example.com url', html: '<p>with short <a href="http://example.com">example.com</a> url</p>' },
    { name: 'file extensions are not domains', input: 'readme.md and views.py', html: '<p>readme.md and views.py</p>' },
    { name: 'trailing punctuation is left out', input: 'end of sentence https://t.co.', html: '<p>end of sentence <a href="https://t.co">https://t.co</a>.</p>' },
    { name: 'parentheses around a URL', input: '(http://foo.com/blah_blah)', html: '<p>(<a href="http://foo.com/blah_blah">http://foo.com/blah_blah</a>)</p>' },
    {
      name: 'balanced parentheses inside a URL',
      input: '(http://en.wikipedia.org/wiki/Each-way_(bet))',
      html: '<p>(<a href="http://en.wikipedia.org/wiki/Each-way_(bet)">http://en.wikipedia.org/wiki/Each-way_(bet)</a>)</p>',
    },
    { name: 'email', input: 'a@b.com', html: '<p><a href="mailto:a@b.com">a@b.com</a></p>' },
    { name: 'query ampersands are escaped', input: 'https://x.com/?a=1&b=2', html: '<p><a href="https://x.com/?a=1&amp;b=2">https://x.com/?a=1&amp;b=2</a></p>' },
    { name: 'inside strikethrough', input: '~~test http://xx.xx link~~', html: '<p><del>test <a href="http://xx.xx">http://xx.xx</a> link</del></p>' },
    { name: 'not glued to other syntax', input: '**http://x.com**', html: '<p><strong>http://x.com</strong></p>' },
  ]);
});

t.test('renderMarkdown: image and video previews', async (t) => {
  const url = 'https://www.google.com/images/srpr/logo4w.png';
  runCases(t, [
    {
      name: 'an image URL on its own becomes the preview',
      input: url,
      html: img(url),
      result: { hasLink: true, hasImage: true },
    },
    {
      name: 'preview after the paragraph',
      input: `Google logo today: ${url}\nKinda boring`,
      html: `<p>Google logo today: <a href="${url}">${url}</a><br>\nKinda boring</p>\n${img(url)}`,
      result: { hasImage: true },
    },
    {
      name: 'a named link keeps its paragraph and gives the title',
      input: `[Google link](${url})`,
      html: `<p><a href="${url}">Google link</a></p>\n${img(url, 'Google link')}`,
    },
    {
      name: 'one preview per URL',
      input: `${url} and ${url}`,
      html: `<p><a href="${url}">${url}</a> and <a href="${url}">${url}</a></p>\n${img(url)}`,
    },
    {
      name: 'in a list item, the preview ends the item',
      input: `* Google?\n* Google. ${url}\n* Google!`,
      html: `<ul>\n<li>Google?</li>\n<li>Google. <a href="${url}">${url}</a>${img(url)}</li>\n<li>Google!</li>\n</ul>`,
    },
    {
      name: 'no previews inside quotes',
      input: `>${url}`,
      html: `<blockquote>\n<p><a href="${url}">${url}</a></p>\n</blockquote>`,
      result: { hasLink: true, hasImage: false },
    },
    {
      name: 'videos get a player',
      input: 'https://example.com/v.mp4',
      html:
        '<div class="message_inline_image message_inline_video"><a href="https://example.com/v.mp4">' +
        '<video preload="metadata" src="https://example.com/v.mp4"></video></a></div>',
      result: { hasImage: false },
    },
  ]);
});

t.test('renderMarkdown: uploads', async (t) => {
  runCases(t, [
    {
      name: 'a relative upload link',
      input: '[zulip.txt](/user_uploads/2/ce/2Xpnnwgh/zulip.txt)',
      html: '<p><a href="/user_uploads/2/ce/2Xpnnwgh/zulip.txt">zulip.txt</a></p>',
      result: { hasAttachment: true, attachmentPathIds: ['2/ce/2Xpnnwgh/zulip.txt'] },
    },
    {
      name: 'an absolute upload link on this realm becomes relative',
      input: '[zulip.txt](http://zulip.testserver/user_uploads/2/ce/x/zulip.txt)',
      html: '<p><a href="user_uploads/2/ce/x/zulip.txt">zulip.txt</a></p>',
      result: { hasAttachment: true, attachmentPathIds: ['2/ce/x/zulip.txt'] },
    },
    {
      name: 'uploads on other servers are not attachments',
      input: 'https://other.example.com/user_uploads/2/ce/x/zulip.txt',
      html: '<p><a href="https://other.example.com/user_uploads/2/ce/x/zulip.txt">https://other.example.com/user_uploads/2/ce/x/zulip.txt</a></p>',
      result: { hasAttachment: false, attachmentPathIds: [] },
    },
  ]);
});
