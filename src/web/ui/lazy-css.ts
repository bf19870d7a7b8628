/**
 * KaTeX's and the code highlighting's styles, loaded the first time a message needs them: they
 * are most of the CSS a chat could need and most screens never do (W4 in the bench). The build
 * (src/build/web.ts) defines their hashed URLs.
 */
declare const __LAZY_CSS__: { katex: string; highlight: string };

const loaded = new Set<string>();

function load(href: string): void {
  if (loaded.has(href)) return;
  loaded.add(href);
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  document.head.append(link);
}

export function lazyStyles(root: ParentNode): void {
  if (!loaded.has(__LAZY_CSS__.katex) && root.querySelector('.katex')) load(__LAZY_CSS__.katex);
  if (!loaded.has(__LAZY_CSS__.highlight) && root.querySelector('.codehilite')) load(__LAZY_CSS__.highlight);
}
