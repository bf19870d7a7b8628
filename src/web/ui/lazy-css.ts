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

/**
 * The server writes a Unicode emoji as `<span class="emoji emoji-1f44b">:wave:</span>` for
 * clients to draw (the reference's web app uses an image sprite). Here the character itself is
 * drawn by the system's emoji font: no sprite to download.
 */
export function drawEmoji(root: ParentNode): void {
  for (const span of root.querySelectorAll<HTMLElement>('span.emoji:not([data-drawn])')) {
    const code = /(?:^|\s)emoji-([0-9a-f-]+)(?:\s|$)/.exec(span.className)?.[1];
    span.dataset.drawn = '';
    if (!code) continue;
    try {
      span.textContent = String.fromCodePoint(...code.split('-').map((c) => parseInt(c, 16)));
    } catch {
      // Not a code point sequence: keep the name.
    }
  }
}

/**
 * An image preview of another site's picture is not loaded (the page's CSP allows images from
 * this server only: reading a message tells no other host who read it); it says where the
 * image is instead, and its link still opens it.
 */
export function markExternalImages(root: ParentNode): void {
  for (const link of root.querySelectorAll<HTMLAnchorElement>('.message_inline_image:not([data-checked]) a')) {
    const box = link.parentElement!;
    box.dataset.checked = '';
    let url: URL;
    try {
      url = new URL(link.getAttribute('href') ?? '', location.href);
    } catch {
      continue;
    }
    if (url.origin === location.origin) continue;
    box.classList.add('external');
    link.querySelector('img, video')?.remove();
    link.textContent = `Image at ${url.host} (not loaded here)`;
  }
}
