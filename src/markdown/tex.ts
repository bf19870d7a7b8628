/**
 * Math with KaTeX, the renderer the reference uses (its HTML is KaTeX's, byte for byte).
 * Errors are reported as undefined so the caller can show the reference's `tex-error` span.
 */
import { lazyRequire } from './lazy.js';

interface Katex {
  renderToString(tex: string, options: Record<string, unknown>): string;
}

let katex: Katex | undefined;

export function renderTex(tex: string, displayMode: boolean): string | undefined {
  katex ??= lazyRequire<Katex>('katex');
  try {
    return katex.renderToString(tex, {
      displayMode,
      throwOnError: true,
      strict: false,
      trust: false,
      // Bounds on what one formula may expand to, so a formula cannot blow up the output.
      maxExpand: 1000,
      maxSize: 100,
    });
  } catch {
    return undefined;
  }
}
