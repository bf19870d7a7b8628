import { escapeAll as h } from '../markdown/preprocess.js';
import type { Reply } from './operation.js';

/**
 * The frame of the few pages the server shows people (the invitation sign-up page, a call link
 * that cannot be followed): plain HTML with inline CSS, no script and no build step. The shard
 * renders it; the front end only writes it (front/pages.ts). The headers keep the page (and a
 * key in its URL) out of caches, frames and Referer headers.
 */
const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'",
};

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#1d1f24;margin:0;padding:2rem 1rem}
main{max-width:32rem;margin:0 auto;background:#fff;border-radius:10px;padding:2rem;box-shadow:0 2px 12px rgba(0,0,0,.08)}
h1{font-size:1.5rem;margin-top:0}h2{font-size:1.1rem;margin-top:1.5rem}
label{display:block;font-weight:600;margin-top:1rem}
input{box-sizing:border-box;width:100%;padding:.55rem;margin-top:.3rem;font-size:1rem;border:1px solid #b8bcc6;border-radius:6px}
input[readonly]{background:#eef0f3}
button{margin-top:1.5rem;width:100%;padding:.7rem;font-size:1rem;font-weight:600;color:#fff;background:#5f5ec7;border:0;border-radius:6px;cursor:pointer}
.error{color:#b3261e;background:#fdecea;border-radius:6px;padding:.6rem .8rem}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;background:#eef0f3;border-radius:4px;padding:.1rem .3rem}
pre{padding:.8rem;overflow-x:auto}dt{font-weight:600;margin-top:.6rem}dd{margin-left:0}
.muted{color:#5b606b;font-size:.9rem}`;

export function htmlPage(status: number, title: string, body: string): Reply {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${h(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
  return { status, body: html, headers: HEADERS };
}
