import { ApiError, invalidArgument } from './errors.js';

/**
 * Limits on what a request's parameters may be, checked before they are copied to a shard or
 * decoded further. Structured values are walked iteratively: a recursive walk (or V8's
 * structured clone, which posts parameters to the shard's thread) overflows the stack on
 * JSON nested a few thousand deep.
 *
 * Lone surrogates (`"\ud800"` in JSON) are refused: they are not Unicode text, LMDB's msgpack
 * stores them as bytes that read back as three U+FFFD, and no narrow would ever find them
 * again. Only JSON produces them; percent-encoded and multipart text decodes invalid UTF-8 to
 * U+FFFD itself.
 */
export interface InputLimits {
  /** Most parameters in one request (query and body together). */
  params: number;
  /** Deepest nesting of a JSON value (a list is one level, a list in it two). */
  depth: number;
}

export const tooManyParams = (limit: number) => new ApiError(`Too many parameters (limit: ${limit}).`);

const tooDeep = (name: string, limit: number) => invalidArgument(name, `Argument "${name}" is nested too deeply (limit: ${limit} levels).`);

/** The first lone surrogate in `text`, or -1. */
export function loneSurrogateAt(text: string): number {
  // String.prototype.isWellFormed (Node 20) is native and fast; the loop finds where.
  if ((text as unknown as { isWellFormed(): boolean }).isWellFormed()) return -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return i;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

function checkText(name: string, text: string): void {
  const at = loneSurrogateAt(text);
  if (at >= 0) throw invalidArgument(name, `Argument "${name}" is not valid Unicode: a lone surrogate (U+${text.charCodeAt(at).toString(16).toUpperCase()}) at position ${at}.`);
}

/**
 * Checks one parameter's value (a string, or a JSON value from a JSON body or a decoded field):
 * depth, and that every string in it (object keys too) is well-formed Unicode.
 */
export function checkValue(name: string, value: unknown, limits: InputLimits): void {
  if (typeof value === 'string') return checkText(name, value);
  if (value === null || typeof value !== 'object') return;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node === 'string') {
      checkText(name, node);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (depth > limits.depth) throw tooDeep(name, limits.depth);
    if (Array.isArray(node)) for (const item of node) stack.push([item, depth + 1]);
    else
      for (const [key, item] of Object.entries(node)) {
        checkText(name, key);
        stack.push([item, depth + 1]);
      }
  }
}

/** Checks a request's merged parameters: their number, and each value (checkValue). */
export function checkParams(params: Record<string, unknown>, limits: InputLimits): void {
  const names = Object.keys(params);
  if (names.length > limits.params) throw tooManyParams(limits.params);
  for (const name of names) {
    checkText(name, name);
    checkValue(name, params[name], limits);
  }
}

/**
 * How deep JSON text nests, without parsing it: brackets outside strings. Lets a field be
 * refused before JSON.parse builds a deep value that later code would walk recursively.
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** A `\u` escape of a surrogate: the only way a lone one gets into a decoded field. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * JSON.parse of a field's text, refusing it first when it nests deeper than the limit, and after
 * when it decodes to a lone surrogate. The field itself is well-formed text (the front end checked
 * it), so the decoded value can only hold a lone surrogate through an escape, and short text
 * cannot nest deep: the common field costs neither walk.
 */
export function parseJsonField(name: string, text: string, limits: InputLimits): unknown {
  if (text.length > 2 * limits.depth && jsonDepth(text) > limits.depth) throw tooDeep(name, limits.depth);
  const value = JSON.parse(text);
  if (SURROGATE_ESCAPE.test(text)) checkValue(name, value, limits);
  return value;
}
