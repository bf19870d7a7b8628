import t from 'tap';
import { runCases } from './fixtures/context.js';

// KaTeX's own output, as the reference embeds it.
const ONE_PLUS =
  '<span class="katex"><span class="katex-mathml"><math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow>' +
  '<mn>1</mn><mo>⊕</mo><mn>0</mn><mo>=</mo><mn>1</mn></mrow><annotation encoding="application/x-tex">1 \\oplus 0 = 1' +
  '</annotation></semantics></math></span><span class="katex-html" aria-hidden="true"><span class="base"><span class="strut" ' +
  'style="height:0.7278em;vertical-align:-0.0833em;"></span><span class="mord">1</span><span class="mspace" ' +
  'style="margin-right:0.2222em;"></span><span class="mbin">⊕</span><span class="mspace" style="margin-right:0.2222em;">' +
  '</span></span><span class="base"><span class="strut" style="height:0.6444em;"></span><span class="mord">0</span>' +
  '<span class="mspace" style="margin-right:0.2778em;"></span><span class="mrel">=</span><span class="mspace" ' +
  'style="margin-right:0.2778em;"></span></span><span class="base"><span class="strut" style="height:0.6444em;"></span>' +
  '<span class="mord">1</span></span></span></span>';

t.test('renderMarkdown: math', async (t) => {
  runCases(t, [
    { name: 'inline math', input: '$$1 \\oplus 0 = 1$$', html: `<p>${ONE_PLUS}</p>` },
    { name: 'math in inline code is code', input: '`$$a$$`', html: '<p><code>$$a$$</code></p>' },
    { name: 'inline math may not span lines', input: '$$x=3\ny=4$$', html: '<p>$$x=3<br>\ny=4$$</p>' },
    { name: 'a money smiley is not math', input: '$$_$$ is a fun money-related smiley!', html: '<p>$$_$$ is a fun money-related smiley!</p>' },
    { name: 'many dollars are not math', input: 'We are going to make some $$$ or maybe even $$$$!', html: '<p>We are going to make some $$$ or maybe even $$$$!</p>' },
    { name: 'a TeX error shows the source', input: '$$\\error{**a**}$$', html: '<p><span class="tex-error">$$\\error{**a**}$$</span></p>' },
    {
      name: 'a TeX error escapes markup',
      input: "$$\\<script type='text/javascript'>alert('xss');</script>$$",
      html: "<p><span class=\"tex-error\">$$\\&lt;script type='text/javascript'&gt;alert('xss');&lt;/script&gt;$$</span></p>",
    },
    {
      name: 'a math block error escapes markup',
      input: "~~~math\n\\<script type='text/javascript'>alert('xss');</script>\n~~~",
      html: '<p><span class="tex-error">\\&lt;script type=&#x27;text/javascript&#x27;&gt;alert(&#x27;xss&#x27;);&lt;/script&gt;</span></p>',
    },
  ]);
});

t.test('renderMarkdown: math blocks are display math', async (t) => {
  const { renderMarkdown } = await import('../../src/markdown/index.js');
  const { makeCtx } = await import('./fixtures/context.js');
  const html = renderMarkdown('```math\na^2 = b^2 + c^2\n```', makeCtx()).html;
  t.match(html, /^<p><span class="katex-display"><span class="katex">/, 'a math fence renders display math in a paragraph');
  t.match(html, /<math xmlns="http:\/\/www.w3.org\/1998\/Math\/MathML" display="block">/, 'MathML is in display mode');
  t.match(html, /<\/span><\/p>$/, 'the paragraph closes the block');
  const text = renderMarkdown('```math\n\\text{**a**}\n```', makeCtx()).html;
  t.match(text, /<mtext>\*\*a\*\*<\/mtext>/, 'markdown inside math stays literal');
});
