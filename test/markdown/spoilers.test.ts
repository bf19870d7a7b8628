import t from 'tap';
import { runCases } from './fixtures/context.js';

t.test('renderMarkdown: spoilers', async (t) => {
  runCases(t, [
    {
      name: 'spoiler with a header',
      input: '```spoiler header\ncontent\n```\noutside spoiler\n',
      html:
        '<div class="spoiler-block"><div class="spoiler-header">\n<p>header</p>\n</div><div class="spoiler-content" aria-hidden="true">\n' +
        '<p>content</p>\n</div></div>\n<p>outside spoiler</p>',
    },
    {
      name: 'spoiler without a header',
      input: '```spoiler\ncontent\n```\noutside spoiler\n',
      html:
        '<div class="spoiler-block"><div class="spoiler-header">\n</div><div class="spoiler-content" aria-hidden="true">\n' +
        '<p>content</p>\n</div></div>\n<p>outside spoiler</p>',
    },
    {
      name: 'markup in header and content is escaped',
      input: '```spoiler <script>alert(1)</script>\n<script>alert(1)</script>\n```',
      html:
        '<div class="spoiler-block"><div class="spoiler-header">\n<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n</div></div>',
    },
    {
      name: 'a spoiler inside a quote',
      input: '~~~quote\n```spoiler header\ncontent\n```\noutside spoiler\n~~~\noutside quote',
      html:
        '<blockquote>\n<div class="spoiler-block"><div class="spoiler-header">\n<p>header</p>\n</div><div class="spoiler-content" aria-hidden="true">\n' +
        '<p>content</p>\n</div></div>\n<p>outside spoiler</p>\n</blockquote>\n<p>outside quote</p>',
    },
    {
      name: 'the header is markdown',
      input: '```spoiler [Header](https://example.com) :smile:\ncontent\n```',
      html:
        '<div class="spoiler-block"><div class="spoiler-header">\n<p><a href="https://example.com">Header</a> ' +
        '<span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span></p>\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n<p>content</p>\n</div></div>',
    },
    {
      name: 'an image link inside a spoiler is previewed inside it',
      input: '```spoiler header\nContent http://example.com/image.png\n```',
      html:
        '<div class="spoiler-block"><div class="spoiler-header">\n<p>header</p>\n</div><div class="spoiler-content" aria-hidden="true">\n' +
        '<p>Content <a href="http://example.com/image.png">http://example.com/image.png</a></p>\n' +
        '<div class="message_inline_image"><a href="http://example.com/image.png"><img data-src-fullsize="/thumbnail?url=http%3A%2F%2Fexample.com%2Fimage.png&amp;size=full" src="/thumbnail?url=http%3A%2F%2Fexample.com%2Fimage.png&amp;size=thumbnail"></a></div></div></div>',
      result: { hasImage: true, hasLink: true },
    },
  ]);
});
