import t from 'tap';
import { ApiError } from '../../src/lib/errors.js';
import { MAX_RENDERED_LENGTH, renderMarkdown } from '../../src/markdown/index.js';
import { makeCtx } from './fixtures/context.js';

/** Renders, or returns the ApiError a cap raised; anything else fails the test. */
function renderOrCap(content: string): string | ApiError {
  try {
    return renderMarkdown(content, makeCtx()).html;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}

t.test('renderMarkdown: output size cap', async (t) => {
  // Each "@**all**" line renders to ~90 characters; 12,000 of them exceed the cap.
  const result = renderOrCap('@**all**\n'.repeat(12_000));
  t.type(result, ApiError, 'rendering that exceeds the cap is refused');
  if (result instanceof ApiError) {
    t.equal(result.message, 'Unable to render message', "the reference's message");
    t.equal(result.code, 'BAD_REQUEST', 'BAD_REQUEST');
    t.equal(result.status, 400, 'status 400');
  }
  t.ok(MAX_RENDERED_LENGTH >= 100 * 10_000, 'the cap is at least the reference cap');
});

t.test('renderMarkdown: pathological inputs finish', async (t) => {
  const inputs: [string, string][] = [
    ['deeply nested quotes', '>'.repeat(5000) + ' x'],
    ['deeply nested lists', Array.from({ length: 500 }, (_, i) => ' '.repeat(i * 2) + '* x').join('\n')],
    ['nested quote fences', '```quote\n'.repeat(1000) + 'x'],
    ['unbalanced brackets', '['.repeat(5000) + '](' + '('.repeat(5000)],
    ['many stars', '*a '.repeat(5000)],
    ['URL with many parentheses', 'http://a.com/' + '('.repeat(3000) + 'x'],
    ['long word', 'x'.repeat(10_000)],
    ['many dollar signs', '$$a'.repeat(3000)],
    ['many mentions', '@**Iago** '.repeat(1000)],
  ];
  for (const [name, input] of inputs) {
    const result = renderOrCap(input);
    t.ok(typeof result === 'string' || result instanceof ApiError, `${name}: rendered or refused with an ApiError`);
  }
});
