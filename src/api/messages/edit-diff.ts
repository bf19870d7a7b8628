/**
 * content_html_diff of GET /messages/{id}/history: the new rendering with inserted text wrapped
 * in `<span class="highlight_text_inserted">` and removed text shown in
 * `<span class="highlight_text_deleted">`, inside a `<div>`, as the reference's
 * highlight_html_differences marks them.
 *
 * The reference diffs the two HTML texts character by character and repairs the tags around the
 * changes. This is simpler and documented as such: both renderings are cut into tags and words
 * (and runs of whitespace), the longest common subsequence of those tokens is
 * kept as is, tags appear as in the new rendering (removed tags are dropped, so the markup stays
 * well nested), and runs of inserted or deleted words are wrapped. Very long messages, where the
 * quadratic table would be costly, are shown as wholly replaced.
 */

const MAX_TABLE = 4_000_000;

function tokenize(html: string): string[] {
  return html.match(/<[^>]*>|[^<\s]+|\s+/g) ?? [];
}

const isTag = (token: string) => token.startsWith('<');

type Op = { kind: 'same' | 'ins' | 'del'; token: string };

function diffTokens(a: string[], b: string[]): Op[] {
  if (a.length * b.length > MAX_TABLE) return [...a.map((token) => ({ kind: 'del' as const, token })), ...b.map((token) => ({ kind: 'ins' as const, token }))];
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: 'same', token: a[i++] });
      j++;
    } else if (j < b.length && (i === a.length || lcs[i * width + j + 1] >= lcs[(i + 1) * width + j])) {
      ops.push({ kind: 'ins', token: b[j++] });
    } else {
      ops.push({ kind: 'del', token: a[i++] });
    }
  }
  return ops;
}

export function htmlDiff(before: string, after: string): string {
  let html = '';
  let open: 'ins' | 'del' | null = null;
  const close = () => {
    if (open) html += '</span>';
    open = null;
  };
  for (const op of diffTokens(tokenize(before), tokenize(after))) {
    if (isTag(op.token)) {
      // Tags come from the new rendering only, outside any highlight span.
      close();
      if (op.kind !== 'del') html += op.token;
      continue;
    }
    if (op.kind === 'same') {
      close();
      html += op.token;
      continue;
    }
    if (open !== op.kind) {
      close();
      html += `<span class="highlight_text_${op.kind === 'ins' ? 'inserted' : 'deleted'}">`;
      open = op.kind;
    }
    html += op.token;
  }
  close();
  return `<div>${html}</div>`;
}
