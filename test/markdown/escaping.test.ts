import t from 'tap';
import { renderMarkdown } from '../../src/markdown/index.js';
import { makeCtx, runCases } from './fixtures/context.js';

// No input may produce markup of its own: raw HTML is text, unsafe URLs are not links, and
// every attribute value is escaped.
t.test('renderMarkdown: raw HTML is escaped', async (t) => {
  runCases(t, [
    { name: 'heading tag', input: '<h1>stay normal</h1> thanks', html: '<p>&lt;h1&gt;stay normal&lt;/h1&gt; thanks</p>' },
    { name: 'script', input: '<script>alert(1)</script>', html: '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>' },
    { name: 'nested script', input: '<<script>script>evil()<</script>/script>', html: '<p>&lt;&lt;script&gt;script&gt;evil()&lt;&lt;/script&gt;/script&gt;</p>' },
    { name: 'unclosed tag', input: '<script src=http://xx.com/xss.js<b>', html: '<p>&lt;script src=http://xx.com/xss.js&lt;b&gt;</p>' },
    { name: 'html block', input: '<div onclick="x()">\nhi\n</div>', html: '<p>&lt;div onclick="x()"&gt;<br>\nhi<br>\n&lt;/div&gt;</p>' },
    { name: 'in emphasis', input: '*<h1>Hello world</h1>*', html: '<p><em>&lt;h1&gt;Hello world&lt;/h1&gt;</em></p>' },
    { name: 'html comment', input: '<!-- x --> <img src=x onerror=alert(1)>', html: '<p>&lt;!-- x --&gt; &lt;img src=x onerror=alert(1)&gt;</p>' },
    { name: 'placeholder characters cannot be forged', input: 'a\u0002\uE030\u0003b\u0001 0\u0001', html: '<p>a\uE030b 0</p>' },
  ]);
});

t.test('renderMarkdown: unsafe URLs are not links', async (t) => {
  runCases(t, [
    { name: 'javascript: link', input: '[foo](javascript:alert(1))', html: '<p>[foo](javascript:alert(1))</p>', result: { hasLink: false } },
    { name: 'javascript: with a domain', input: '[foo](javascript:foo.com)', html: '<p>[foo](javascript:<a href="http://foo.com">foo.com</a>)</p>' },
    { name: 'javascript:// link', input: '[foo](javascript://foo.com)', html: '<p>[foo](javascript://foo.com)</p>' },
    { name: 'uppercase scheme', input: '[foo](JaVaScRiPt:alert(1))', html: '<p>[foo](JaVaScRiPt:alert(1))</p>' },
    { name: 'data: URL', input: '[x](data:text/html;base64,PHNjcmlwdD4=)', html: '<p>[x](data:text/html;base64,PHNjcmlwdD4=)</p>' },
    { name: 'bare javascript:', input: 'javascript://foo.com', html: '<p>javascript://foo.com</p>' },
    { name: 'unknown scheme', input: 'itms://itunes.com/apps/appname', html: '<p>itms://itunes.com/apps/appname</p>' },
    {
      name: 'markup in a rejected link stays escaped',
      input: '[foo](javascript:<i>"foo&bar"</i>)',
      html: '<p>[foo](javascript:&lt;i&gt;"foo&amp;bar"&lt;/i&gt;)</p>',
    },
  ]);
});

t.test('renderMarkdown: attributes cannot be broken out of', async (t) => {
  runCases(t, [
    {
      name: 'quote in a link URL',
      input: '[x](https://a.com/"onmouseover="alert(1))',
      html: '<p><a href="https://a.com/&quot;onmouseover=&quot;alert(1)">x</a></p>',
    },
    {
      name: 'a link title',
      input: '[x](https://a.com "it\'s <b>&quot;")',
      html: '<p><a href="https://a.com" title="it\'s &lt;b&gt;&amp;quot;">x</a></p>',
    },
    {
      name: 'an escaped quote in a title stays inside the URL',
      input: '[x](https://a.com "a\\" onclick=y")',
      html: '<p><a href="https://a.com%20&quot;a\\&quot;%20onclick=y&quot;">x</a></p>',
    },
    {
      name: 'a user name with markup and quotes',
      input: '@**<b>"Bold" & co</b>**',
      html: '<p><span class="user-mention" data-user-id="10">@&lt;b&gt;"Bold" &amp; co&lt;/b&gt;</span></p>',
      mentions: { users: [10] },
    },
    {
      name: 'a fence with markup for a language is text',
      input: '```"><script>\nx',
      html: '<p>```"&gt;&lt;script&gt;<br>\nx</p>',
    },
    {
      name: 'a realm emoji URL with a quote',
      input: ':odd:',
      ctx: { realmEmoji: { odd: { id: '3', sourceUrl: '/x.png" onerror="alert(1)' } } },
      html: '<p><img alt=":odd:" class="emoji" src="/x.png&quot; onerror=&quot;alert(1)" title="odd"></p>',
    },
  ]);
  const html = renderMarkdown('#**Verona>"><img src=x>**', makeCtx()).html;
  t.notMatch(html, /<img/, 'a topic name with markup is escaped in text and URL');
});
