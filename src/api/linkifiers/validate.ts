/**
 * Linkifier validation, after the reference's RealmFilter.full_clean(): field checks (blank
 * values, the URL template's syntax), then the pattern against the template's variables, then
 * uniqueness of the pattern in the realm. Every problem is collected by field the way Django
 * collects them, and the first one becomes the message, with all of them under `errors`.
 */
import { ApiError } from '../../lib/errors.js';
import { re2 } from '../../markdown/linkifiers.js';
import type { RealmRecord } from '../../model/types.js';

type Errors = Record<string, string[]>;

/** Django's key for errors that belong to no single field. */
const NON_FIELD = '__all__';

/**
 * re2js reports the RE2/J (Go) wording; the reference shows RE2's own (C++) text, which clients
 * and administrators see, so the kinds are mapped to it. The offending fragment is the same.
 */
const RE2_TEXT: Record<string, string> = {
  'missing closing )': 'missing )',
  'missing closing ]': 'missing ]',
  'unexpected )': 'unexpected )',
  'invalid nested repetition operator': 'bad repetition operator',
  'missing argument to repetition operator': 'no argument for repetition operator',
  'invalid repeat count': 'invalid repetition size',
  'invalid escape sequence': 'invalid escape sequence',
  'invalid character class': 'invalid character class',
  'invalid character class range': 'invalid character class range',
  'trailing backslash at end of expression': 'trailing \\',
  'invalid or unsupported Perl syntax': 'invalid perl operator',
  'invalid named capture': 'invalid named capture group',
  'duplicate capture group name': 'invalid named capture group',
  'invalid UTF-8': 'invalid UTF-8',
  'expression nests too deeply': 'pattern too large - compile failed',
  'expression too large': 'pattern too large - compile failed',
};

interface SyntaxFailure {
  error?: unknown;
  input?: unknown;
}

/** The "Bad regular expression: ..." text for a pattern RE2 refuses. */
function badRegex(err: SyntaxFailure): string {
  const kind = typeof err.error === 'string' ? err.error : '';
  const text = RE2_TEXT[kind];
  if (!text) return 'Unknown regular expression error';
  let arg = typeof err.input === 'string' ? err.input : '';
  // RE2 names the whole `(?P<name>` opener of a repeated group; re2js only the name.
  if (kind === 'duplicate capture group name') arg = `(?P<${arg}>`;
  if (text.startsWith('pattern too large')) arg = '';
  return `Bad regular expression: ${arg ? `${text}: ${arg}` : text}`;
}

/** The pattern's named groups, or the reference's error text when RE2 refuses it. */
export function compilePattern(pattern: string): { groups: string[] } | { error: string } {
  try {
    return { groups: Object.keys(re2().compile(pattern).namedGroups()) };
  } catch (err) {
    if (err && typeof err === 'object' && 'error' in err) return { error: badRegex(err as SyntaxFailure) };
    return { error: 'Unknown regular expression error' };
  }
}

const VARCHAR = '(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})';
const VARSPEC = new RegExp(`^(${VARCHAR}+(?:\\.${VARCHAR}+)*)(?::[1-9][0-9]{0,3}|\\*)?$`);
const OPERATORS = '+#./;?&';

/**
 * The variable names of an RFC 6570 template, or null when it is not one. Literal text is taken
 * as it comes (the reference accepts `%%` and `$not_a_url$`), but a brace outside a complete
 * expression, an empty or reserved operator and a malformed varspec are refused.
 */
export function templateVariables(template: string): string[] | null {
  const names: string[] = [];
  const expression = /\{([^}]*)\}/g;
  let last = 0;
  for (let m = expression.exec(template); m; m = expression.exec(template)) {
    if (/[{}]/.test(template.slice(last, m.index))) return null;
    last = m.index + m[0].length;
    let body = m[1];
    if (body.length > 0 && OPERATORS.includes(body[0])) body = body.slice(1);
    for (const spec of body.split(',')) {
      const parsed = VARSPEC.exec(spec);
      if (!parsed) return null;
      if (!names.includes(parsed[1])) names.push(parsed[1]);
    }
  }
  if (/[{}]/.test(template.slice(last))) return null;
  return names;
}

export interface LinkifierInput {
  pattern: string;
  urlTemplate: string;
}

/** Python's `%r` of a group name: quoted, as group names and varnames need no escaping. */
const quoted = (name: string) => `'${name}'`;

/** The first name in code-point order, as Python's min() picks it. */
const first = (names: string[]) => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[0];

/**
 * Checks a linkifier for `realm` (`selfId`: the one being edited, so it may keep its pattern).
 * Values are expected stripped. Throws the reference's validation error; changes nothing.
 */
export function checkLinkifier(realm: RealmRecord, input: LinkifierInput, selfId?: number): void {
  const errors: Errors = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);

  if (input.pattern === '') add('pattern', 'This field cannot be blank.');
  const variables = templateVariables(input.urlTemplate);
  if (input.urlTemplate === '') add('url_template', 'This field cannot be blank.');
  else if (!variables) add('url_template', 'Invalid URL template.');

  const compiled = compilePattern(input.pattern);
  if ('error' in compiled) add(NON_FIELD, compiled.error);
  else if (variables) {
    const notInPattern = variables.filter((v) => !compiled.groups.includes(v));
    const notInTemplate = compiled.groups.filter((g) => !variables.includes(g));
    if (notInPattern.length > 0) add(NON_FIELD, `Group ${quoted(first(notInPattern))} in URL template is not present in linkifier pattern.`);
    else if (notInTemplate.length > 0) add(NON_FIELD, `Group ${quoted(first(notInTemplate))} in linkifier pattern is not present in URL template.`);
  }

  const taken = (realm.linkifiers ?? []).some((l) => l.pattern === input.pattern && l.id !== selfId);
  if (!errors.pattern && taken) add(NON_FIELD, 'Realm filter with this Realm and Pattern already exists.');

  const fields = Object.keys(errors);
  if (fields.length === 0) return;
  throw new ApiError(errors[fields[0]][0], { data: { errors } });
}
