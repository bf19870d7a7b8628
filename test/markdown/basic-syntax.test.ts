import t from 'tap';
import { runCases } from './fixtures/context.js';

// Paragraphs, breaks, emphasis, headings, lists, quotes and tables, as the reference renders them.
t.test('renderMarkdown: paragraphs, emphasis and line breaks', async (t) => {
  runCases(t, [
    { name: 'empty content', input: '', html: '' },
    { name: 'plain paragraph', input: 'test_input', html: '<p>test_input</p>' },
    { name: 'apostrophes stay as typed', input: "it's lunch time", html: "<p>it's lunch time</p>" },
    { name: 'a newline is a <br>', input: 'test\nbar', html: '<p>test<br>\nbar</p>' },
    { name: 'two paragraphs', input: 'one\n\ntwo', html: '<p>one</p>\n<p>two</p>' },
    { name: 'strong', input: '**foo**', html: '<p><strong>foo</strong></p>' },
    { name: 'emphasis', input: 'A *foo bar* is a *baz quux*', html: '<p>A <em>foo bar</em> is a <em>baz quux</em></p>' },
    { name: 'strong emphasis', input: '***foo***', html: '<p><strong><em>foo</em></strong></p>' },
    { name: 'underscores are not emphasis', input: '_foo_ and __bar__', html: '<p>_foo_ and __bar__</p>' },
    { name: 'pointer stars are not emphasis', input: 'const char *x = (char *)y', html: '<p>const char *x = (char *)y</p>' },
    {
      name: 'strong does not span lines',
      input: "You can check out **any time you'd like\nBut you can never leave**",
      html: "<p>You can check out **any time you'd like<br>\nBut you can never leave**</p>",
    },
    { name: 'strikethrough', input: 'I like ~~software~~ hardware', html: '<p>I like <del>software</del> hardware</p>' },
    { name: 'strikethrough with spaces', input: 'I ~~ like software ~~ love', html: '<p>I <del> like software </del> love</p>' },
    { name: 'inline code keeps its spaces', input: '` outer ` ```    space    ```', html: '<p><code> outer </code> <code>    space    </code></p>' },
    { name: 'inline code escapes entities', input: '`<&nbsp;>`', html: '<p><code>&lt;&amp;nbsp;&gt;</code></p>' },
    { name: 'entities pass, bare ampersands are escaped', input: '& &amp; &amp;amp;', html: '<p>&amp; &amp; &amp;amp;</p>' },
    { name: 'backslashes are literal', input: 'C:\\path\\*to*', html: '<p>C:\\path\\<em>to</em></p>' },
  ]);
});

t.test('renderMarkdown: headings and rules', async (t) => {
  runCases(t, [
    { name: 'h1', input: '# Hello world', html: '<h1>Hello world</h1>' },
    { name: 'heading needs a space', input: '#Hello world', html: '<p>#Hello world</p>' },
    { name: 'h6', input: '###### Hello world', html: '<h6>Hello world</h6>' },
    { name: 'seven hashes is text', input: '####### Hello world', html: '<p>####### Hello world</p>' },
    { name: 'no setext headings', input: 'Title\n=====', html: '<p>Title<br>\n=====</p>' },
    { name: 'horizontal rule', input: 'a\n\n---\n\nb', html: '<p>a</p>\n<hr>\n<p>b</p>' },
  ]);
});

t.test('renderMarkdown: lists', async (t) => {
  runCases(t, [
    {
      name: 'bulleted list after a blank line',
      input: 'Some text with a list:\n\n* One item\n* Two items',
      html: '<p>Some text with a list:</p>\n<ul>\n<li>One item</li>\n<li>Two items</li>\n</ul>',
    },
    {
      name: 'a list may hang off a paragraph',
      input: 'Some text with a hanging list:\n* One item\n- Two items\n+ Three items',
      html: '<p>Some text with a hanging list:</p>\n<ul>\n<li>One item</li>\n<li>Two items</li>\n<li>Three items</li>\n</ul>',
    },
    {
      name: 'two-space indentation nests',
      input: 'Nested list\n* I am outer list\n  * I am inner nested list first item\n  * I am inner nested list second item',
      html:
        '<p>Nested list</p>\n<ul>\n<li>I am outer list<ul>\n<li>I am inner nested list first item</li>\n' +
        '<li>I am inner nested list second item</li>\n</ul>\n</li>\n</ul>',
    },
    {
      name: 'numbered list nests by two spaces and keeps its start',
      input: '1. A\n2. B\n  3. C',
      html: '<ol>\n<li>A</li>\n<li>B<ol start="3">\n<li>C</li>\n</ol>\n</li>\n</ol>',
    },
    {
      name: 'heavily nested numbered list',
      input: 'This is a heavily nested OL\n1. level-1\n  2. level-2\n    3. level-3\n    3. level-3a\n  2. level-2a\n2. level-1a\n',
      html:
        '<p>This is a heavily nested OL</p>\n<ol>\n<li>level-1<ol start="2">\n<li>level-2<ol start="3">\n' +
        '<li>level-3</li>\n<li>level-3a</li>\n</ol>\n</li>\n<li>level-2a</li>\n</ol>\n</li>\n<li>level-1a</li>\n</ol>',
    },
    { name: 'a list may start at any number', input: '3. A\n3. B', html: '<ol start="3">\n<li>A</li>\n<li>B</li>\n</ol>' },
    {
      name: 'loose list items hold paragraphs',
      input: 'Plain list\n\n* Alpha\n\n* Beta',
      html: '<p>Plain list</p>\n<ul>\n<li>\n<p>Alpha</p>\n</li>\n<li>\n<p>Beta</p>\n</li>\n</ul>',
    },
    {
      name: 'four-space indented list is code after a paragraph',
      input: 'para:\n\n    1. list-1\n    2. list-2\n',
      html: '<p>para:</p>\n<div class="codehilite"><pre><span></span><code>1. list-1\n2. list-2\n</code></pre></div>',
    },
  ]);
});

t.test('renderMarkdown: quotes', async (t) => {
  runCases(t, [
    { name: 'quote', input: '> Hello World!', html: '<blockquote>\n<p>Hello World!</p>\n</blockquote>' },
    {
      name: 'a blank line separates quotes',
      input: '> Hello World!\n\n> Hello Universe!',
      html: '<blockquote>\n<p>Hello World!</p>\n</blockquote>\n<blockquote>\n<p>Hello Universe!</p>\n</blockquote>',
    },
    { name: 'a lone ">" is text', input: '>', html: '<p>&gt;</p>' },
    {
      name: 'fenced quote',
      input: 'Hamlet said:\n~~~ quote\nTo be or **not** to be.\n\nThat is the question\n~~~',
      html: '<p>Hamlet said:</p>\n<blockquote>\n<p>To be or <strong>not</strong> to be.</p>\n<p>That is the question</p>\n</blockquote>',
    },
    {
      name: 'quote fence holding a > quote',
      input: 'Hamlet said:\n~~~ quote\nPolonius said:\n> This above all,\nto thine ownself be true.\n\nWhat good advice!\n~~~',
      html:
        '<p>Hamlet said:</p>\n<blockquote>\n<p>Polonius said:</p>\n<blockquote>\n<p>This above all,<br>\n' +
        'to thine ownself be true.</p>\n</blockquote>\n<p>What good advice!</p>\n</blockquote>',
    },
    {
      name: 'list inside a quote fence',
      input: '```quote\nSome text with a hanging list inside quote:\n* one\n* two\n```',
      html: '<blockquote>\n<p>Some text with a hanging list inside quote:</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n</blockquote>',
    },
    {
      name: 'heading inside a quote fence',
      input: '```quote\n# line 1\n#line 2\n```',
      html: '<blockquote>\n<h1>line 1</h1>\n<p>#line 2</p>\n</blockquote>',
    },
  ]);
});

t.test('renderMarkdown: tables', async (t) => {
  runCases(t, [
    {
      name: 'table',
      input: 'This is a table:\n\nFirst header  | Second header\n------------- | -------------\nContent cell  | Content cell\n',
      html:
        '<p>This is a table:</p>\n<table>\n<thead>\n<tr>\n<th>First header</th>\n<th>Second header</th>\n</tr>\n</thead>\n' +
        '<tbody>\n<tr>\n<td>Content cell</td>\n<td>Content cell</td>\n</tr>\n</tbody>\n</table>',
    },
    {
      name: 'aligned columns',
      input: 'a | b\n:-- | --:\n1 | 2',
      html:
        '<table>\n<thead>\n<tr>\n<th style="text-align: left;">a</th>\n<th style="text-align: right;">b</th>\n</tr>\n</thead>\n' +
        '<tbody>\n<tr>\n<td style="text-align: left;">1</td>\n<td style="text-align: right;">2</td>\n</tr>\n</tbody>\n</table>',
    },
  ]);
});
