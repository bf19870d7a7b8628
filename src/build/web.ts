import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';

/**
 * Builds the web app (src/web/) into dist/web, part of `npm run build`:
 *
 *   1. the styles loaded only when a message needs them: KaTeX's (with its fonts) and the code
 *      highlighting's, each a content-hashed file;
 *   2. the app: src/web/app.tsx and the CSS it imports, bundled and minified by esbuild into
 *      app-<hash>.js and app-<hash>.css, told the names of step 1's files;
 *   3. index.html naming them, and the favicon (drawn from src/web/icon.svg by sharp);
 *   4. a gzip and a brotli copy of every text file, made once here rather than per request.
 *
 * esbuild type-checks nothing: `tsc -p src/web` does, before this runs.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const web = join(root, 'src', 'web');
const out = join(root, 'dist', 'web');

/** The output file of an entry point, as a URL path under /static/web/. */
function outputOf(meta: Metafile, entry: string): string {
  for (const [file, info] of Object.entries(meta.outputs)) if (info.entryPoint && relative(root, join(root, info.entryPoint)) === entry && !file.endsWith('.map')) return `/static/web/${relative(out, join(root, file))}`;
  throw new Error(`no output for ${entry}`);
}

function cssOf(meta: Metafile, jsPath: string): string | undefined {
  const js = Object.entries(meta.outputs).find(([file]) => `/static/web/${relative(out, join(root, file))}` === jsPath);
  return js?.[1].cssBundle ? `/static/web/${relative(out, join(root, js[1].cssBundle))}` : undefined;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const COMPRESSIBLE = /\.(js|css|html|svg|json)$/;

export async function buildWeb(): Promise<{ files: number; bytes: { raw: number; gzip: number; brotli: number } }> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const common = { absWorkingDir: root, bundle: true, minify: true, outdir: out, entryNames: '[name]-[hash]', assetNames: '[name]-[hash]', metafile: true, logLevel: 'warning' as const };

  const katexCss = relative(root, join(root, 'node_modules', 'katex', 'dist', 'katex.min.css'));
  const highlightCss = relative(root, join(web, 'styles', 'highlight.css'));
  const lazy = await build({ ...common, entryPoints: [katexCss, highlightCss], loader: { '.woff2': 'file', '.woff': 'file', '.ttf': 'file' } });
  const lazyCss = { katex: outputOf(lazy.metafile!, katexCss), highlight: outputOf(lazy.metafile!, highlightCss) };

  const main = relative(root, join(web, 'app.tsx'));
  const app = await build({
    ...common,
    entryPoints: [main],
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(web, 'tsconfig.json'),
    define: { __LAZY_CSS__: JSON.stringify(lazyCss) },
    legalComments: 'none',
  });
  const appJs = outputOf(app.metafile!, main);
  const appCss = cssOf(app.metafile!, appJs);

  const icon = readFileSync(join(web, 'icon.svg'));
  const { default: sharp } = await import('sharp');
  const png = await sharp(icon).resize(64, 64).png().toBuffer();
  writeFileSync(join(out, 'favicon.png'), png);
  const iconName = `icon-${createHash('sha256').update(icon).digest('hex').slice(0, 8).toUpperCase()}.svg`;
  writeFileSync(join(out, iconName), icon);

  // No inline script or style: the Content-Security-Policy (front/web-assets.ts) forbids them.
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Stoa</title>
<link rel="icon" href="/static/web/${iconName}" type="image/svg+xml">
${appCss ? `<link rel="stylesheet" href="${appCss}">` : ''}
<script type="module" src="${appJs}"></script>
</head>
<body>
<div id="app"><p class="loading" role="status">Loading…</p></div>
</body>
</html>
`;
  writeFileSync(join(out, 'index.html'), html);

  const bytes = { raw: 0, gzip: 0, brotli: 0 };
  let files = 0;
  for (const file of walk(out)) {
    if (!COMPRESSIBLE.test(file)) continue;
    const raw = readFileSync(file);
    const gz = gzipSync(raw, { level: 9 });
    const br = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
    writeFileSync(`${file}.gz`, gz);
    writeFileSync(`${file}.br`, br);
    files++;
    if (basename(file) === 'index.html' || file.includes('/app-')) {
      bytes.raw += raw.length;
      bytes.gzip += gz.length;
      bytes.brotli += br.length;
    }
  }
  return { files, bytes };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  buildWeb().then(
    ({ bytes }) => console.log(`web app built in ${Date.now() - started} ms: first load ${bytes.raw} bytes, ${bytes.gzip} gzip, ${bytes.brotli} brotli (dist/web)`),
    (err) => {
      console.error(`web app build failed: ${err instanceof Error ? err.message : err}`);
      process.exit(1);
    },
  );
}
