/**
 * Code blocks in the reference's markup: `div.codehilite` around `<pre><span></span><code>`,
 * tokens as flat spans carrying Pygments' short class names. The reference highlights with
 * Pygments; we highlight with highlight.js and name each token with the Pygments class for the
 * same kind of token, because clients style (and the mobile app only accepts) those classes.
 */
import { lazyRequire } from './lazy.js';

interface Hljs {
  getLanguage(name: string): unknown;
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string };
}

let hljs: Hljs | undefined;

function highlighter(): Hljs {
  // Loaded on first use: the full language set costs ~150 ms and a few MB at start-up.
  if (!hljs) hljs = lazyRequire<Hljs>('highlight.js');
  return hljs;
}

/** Pygments' lexer names for common aliases, which the reference puts in data-code-language. */
const LANGUAGE_NAMES: Record<string, string> = {};
for (const [name, aliases] of Object.entries({
  Bash: 'bash sh ksh zsh shell',
  'Bash Session': 'console shell-session',
  C: 'c',
  'C#': 'csharp c#',
  'C++': 'cpp c++',
  CSS: 'css',
  Clojure: 'clojure clj',
  Dart: 'dart',
  Diff: 'diff udiff',
  Docker: 'docker dockerfile',
  Elixir: 'elixir ex exs',
  Erlang: 'erlang',
  Go: 'go golang',
  GraphQL: 'graphql',
  HTML: 'html',
  Haskell: 'haskell hs',
  INI: 'ini cfg dosini',
  JSON: 'json',
  Java: 'java',
  JavaScript: 'javascript js',
  Kotlin: 'kotlin',
  Lua: 'lua',
  Makefile: 'make makefile mf bsdmake',
  Markdown: 'markdown md',
  'Objective-C': 'objective-c objectivec obj-c objc',
  OCaml: 'ocaml',
  PHP: 'php php3 php4 php5',
  Perl: 'perl pl',
  PowerShell: 'powershell pwsh posh ps1 psm1',
  Python: 'python py sage python3 py3',
  'Python 2.x': 'python2 py2',
  'Python console session': 'pycon',
  R: 'splus s r',
  Ruby: 'ruby rb duby',
  Rust: 'rust rs',
  SCSS: 'scss',
  SQL: 'sql',
  Scala: 'scala',
  Swift: 'swift',
  TOML: 'toml',
  TeX: 'tex latex',
  'Text only': 'text',
  TypeScript: 'typescript ts',
  XML: 'xml',
  YAML: 'yaml yml',
})) {
  for (const alias of aliases.split(' ')) LANGUAGE_NAMES[alias] = name;
}

/** The data-code-language value: Pygments' name for a known alias, else what the user wrote. */
export function codeLanguageName(lang: string): string {
  return LANGUAGE_NAMES[lang] ?? lang;
}

/** highlight.js scopes mapped to Pygments token classes; unlisted scopes try their parent. */
const SCOPE_CLASSES: Record<string, string> = {
  keyword: 'k', built_in: 'nb', type: 'kt', literal: 'kc', operator: 'o', punctuation: 'p',
  property: 'na', regexp: 'sr', 'char.escape': 'se', subst: 'si', symbol: 'ss', class: 'nc',
  function: 'nf', variable: 'nv', 'variable.language': 'bp', 'variable.constant': 'no',
  title: 'nf', 'title.class': 'nc', 'title.class.inherited': 'nc', 'title.function': 'nf',
  'title.function.invoke': 'n', doctag: 'sd', meta: 'cp', 'meta.keyword': 'cp',
  'meta.string': 'cpf', section: 'gh', tag: 'nt', name: 'nt', attr: 'na', attribute: 'na',
  bullet: 'm', code: 'sb', emphasis: 'ge', strong: 'gs', formula: 's', link: 'na', quote: 'c',
  'selector-tag': 'nt', 'selector-id': 'nn', 'selector-class': 'nc', 'selector-attr': 'na',
  'selector-pseudo': 'nd', 'template-tag': 'cp', 'template-variable': 'nv', addition: 'gi',
  deletion: 'gd', char: 'sc',
};

function tokenClass(scope: string, text: string): string | undefined {
  if (scope === 'string') return text.startsWith('"') ? 's2' : text.startsWith("'") ? 's1' : 's';
  if (scope === 'number') return /^[0-9]+$/.test(text) ? 'mi' : /^[0-9.]+(e[+-]?[0-9]+)?$/i.test(text) ? 'mf' : 'm';
  if (scope === 'comment') return text.startsWith('#!') ? 'ch' : /^(#|\/\/|--)/.test(text) ? 'c1' : text.startsWith('/*') ? 'cm' : 'c';
  for (let s = scope; s; s = s.includes('.') ? s.slice(0, s.lastIndexOf('.')) : '') {
    if (SCOPE_CLASSES[s]) return SCOPE_CLASSES[s];
  }
  return undefined;
}

/** Escaping for code text: the reference escapes quotes only in blocks without a language. */
export function escapeCode(text: string, quotes: boolean): string {
  const basic = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return quotes ? basic.replace(/"/g, '&quot;').replace(/'/g, '&#39;') : basic;
}

function unescapeHljs(text: string): string {
  return text
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#x27;/g, "'")
    .replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

/**
 * Flattens highlight.js's nested spans into a run of (class, text) pieces, each piece taking
 * the innermost scope that maps to a Pygments class.
 */
function flatten(html: string): { cls: string | undefined; text: string }[] {
  const pieces: { cls: string | undefined; text: string }[] = [];
  const stack: string[] = [];
  const re = /<span class="([^"]*)">|<\/span>|([^<]+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(html))) {
    if (m[1] !== undefined) {
      const [first, ...rest] = m[1].split(' ');
      const scope = [first.replace(/^hljs-/, ''), ...rest.map((r) => r.replace(/_+$/, ''))].join('.');
      stack.push(scope);
    } else if (m[0] === '</span>') {
      stack.pop();
    } else {
      const text = unescapeHljs(m[2]);
      let cls: string | undefined;
      for (let i = stack.length - 1; i >= 0 && cls === undefined; i--) cls = tokenClass(stack[i], text);
      pieces.push({ cls, text });
    }
  }
  return pieces;
}

/**
 * The reference's shebang line: with no language given, a first line like `#!python` or
 * `:::python` picks the highlighting language (the line itself stays in the block).
 */
const SHEBANG = /^(?:(?:::+)|#!)(?:(?:\/\w+)*[/ ])?([\w#.+-]*)/;

/** The complete code block HTML for `text` (lines already right-trimmed). */
export function renderCodeBlock(text: string, lang: string | undefined): string {
  const code = text.replace(/^\n+|\n+$/g, '');
  let highlightAs = lang;
  if (!highlightAs) highlightAs = SHEBANG.exec(code.split('\n', 1)[0])?.[1]?.toLowerCase() || undefined;
  const open = lang
    ? `<div class="codehilite" data-code-language="${escapeCode(codeLanguageName(lang), true)}">`
    : '<div class="codehilite">';
  let body: string | undefined;
  if (highlightAs && highlightAs !== 'text') {
    const hl = highlighter();
    // Pygments aliases highlight.js lacks ("py2") go by the language's name ("python").
    if (!hl.getLanguage(highlightAs)) highlightAs = codeLanguageName(highlightAs).toLowerCase().split(' ')[0];
    if (hl.getLanguage(highlightAs)) {
      try {
        body = flatten(hl.highlight(code, { language: highlightAs, ignoreIllegals: true }).value)
          .map(({ cls, text: t }) => {
            const escaped = escapeCode(t, !lang);
            return cls ? `<span class="${cls}">${escaped}</span>` : escaped;
          })
          .join('');
      } catch {
        body = undefined;
      }
    }
  }
  body ??= escapeCode(code, !lang);
  return `${open}<pre><span></span><code>${body}\n</code></pre></div>`;
}
