import t from 'tap';
import { runCases } from './fixtures/context.js';

const PY =
  '<span class="k">def</span> <span class="nf">speak</span>(self):\n    x = <span class="mi">1</span>\n';

t.test('renderMarkdown: code blocks', async (t) => {
  runCases(t, [
    {
      name: 'tilde fence with a language (the language name is canonicalized)',
      input: 'Hamlet said:\n~~~~.python \ndef speak(self):\n    x = 1\n~~~~',
      html: `<p>Hamlet said:</p>\n<div class="codehilite" data-code-language="Python"><pre><span></span><code>${PY}</code></pre></div>`,
    },
    {
      name: 'alias py2',
      input: '``` py2\ndef speak(self):\n    x = 1\n```',
      html: `<div class="codehilite" data-code-language="Python 2.x"><pre><span></span><code>${PY}</code></pre></div>`,
    },
    {
      name: 'unknown language is kept and not highlighted',
      input: '``` inventedlanguage\ndef speak(self):\n    x = 1\n```',
      html: '<div class="codehilite" data-code-language="inventedlanguage"><pre><span></span><code>def speak(self):\n    x = 1\n</code></pre></div>',
    },
    {
      name: 'no language: no attribute, no highlighting, text escaped',
      input: '~~~~\n& &amp; <b>"x"</b>\n~~~~',
      html: '<div class="codehilite"><pre><span></span><code>&amp; &amp;amp; &lt;b&gt;&quot;x&quot;&lt;/b&gt;\n</code></pre></div>',
    },
    {
      name: 'blank lines inside are kept, trailing whitespace dropped',
      input: 'Hamlet once said\n~~~~\ndef func():\n    x = 1\t\t\n\n    y = 2   \n~~~~\nAnd all was good.',
      html:
        '<p>Hamlet once said</p>\n<div class="codehilite"><pre><span></span><code>def func():\n    x = 1\n\n    y = 2\n</code></pre></div>\n' +
        '<p>And all was good.</p>',
    },
    {
      name: 'an unclosed fence runs to the end',
      input: '~~~~\nx = 1',
      html: '<div class="codehilite"><pre><span></span><code>x = 1\n</code></pre></div>',
    },
    {
      name: 'four-space indented code',
      input: '    def foo(): pass',
      html: '<div class="codehilite"><pre><span></span><code>def foo(): pass\n</code></pre></div>',
    },
    { name: 'two spaces is not code', input: '  notcode', html: '<p>notcode</p>' },
    {
      name: 'markdown inside code is left alone',
      input: '~~~\nint x = 3\n* 4;\n~~~',
      html: '<div class="codehilite"><pre><span></span><code>int x = 3\n* 4;\n</code></pre></div>',
    },
    {
      name: 'triple backticks on one line are inline code',
      input: '\n```\nfenced code\n```\n\n```inline code```\n',
      html: '<div class="codehilite"><pre><span></span><code>fenced code\n</code></pre></div>\n<p><code>inline code</code></p>',
    },
    {
      name: 'a malformed fence is text',
      input: '~~~~~~~~xxxxxxxxx:  xxxxxxxxxxxx xxxxx x xxxxxxxx~~~~~~',
      html: '<p>~~~~~~~~xxxxxxxxx:  xxxxxxxxxxxx xxxxx x xxxxxxxx~~~~~~</p>',
    },
    {
      name: 'a shebang line picks the highlighting but adds no language attribute',
      input: '```\n#!/usr/bin/python\nprint("Hello World")\n```',
      html:
        '<div class="codehilite"><pre><span></span><code><span class="ch">#!/usr/bin/python</span>\n' +
        '<span class="nb">print</span>(<span class="s2">&quot;Hello World&quot;</span>)\n</code></pre></div>',
    },
    {
      name: 'the realm default language applies to fences without one',
      input: '```\nx = 1\n```',
      ctx: { defaultCodeBlockLanguage: 'python' },
      html: '<div class="codehilite" data-code-language="Python"><pre><span></span><code>x = <span class="mi">1</span>\n</code></pre></div>',
    },
    {
      name: 'a code fence inside a quote fence',
      input: '~~~ quote\nlook:\n```\n<b>x</b>\n```\n~~~',
      html:
        '<blockquote>\n<p>look:</p>\n<div class="codehilite"><pre><span></span><code>&lt;b&gt;x&lt;/b&gt;\n</code></pre></div>\n</blockquote>',
    },
  ]);
});
