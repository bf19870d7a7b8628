/**
 * The few Python behaviours the reference's webhook texts depend on: its truthiness (an empty
 * string, list or object is false) and str() of a JSON value (None, True, and dicts written
 * with single quotes), for the places where a payload value goes into a message as Python
 * would print it.
 */

export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** repr() of a str: single quotes unless the text has a single and no double quote. */
function reprString(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = q;
  for (const c of s) {
    if (c === '\\') out += '\\\\';
    else if (c === q) out += `\\${q}`;
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (c < ' ' || c === '\x7f') out += `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
    else out += c;
  }
  return out + q;
}

function repr(value: unknown): string {
  if (typeof value === 'string') return reprString(value);
  return pyStr(value, true);
}

/** str() of a parsed JSON value. */
export function pyStr(value: unknown, nested = false): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(value).replace(/^(-?\d+)$/, '$1.0');
  if (typeof value === 'string') return nested ? reprString(value) : value;
  if (Array.isArray(value)) return `[${value.map(repr).join(', ')}]`;
  return `{${Object.entries(value as object).map(([k, v]) => `${reprString(k)}: ${repr(v)}`).join(', ')}}`;
}

/** Python's string.punctuation */
export const PY_PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

/** str.splitlines() */
export function splitLines(s: string): string[] {
  const lines = s.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The first line of a text, as the reference's summary lines take it. */
export function firstLine(s: string): string {
  return splitLines(s)[0] ?? '';
}

/** Python's urllib.parse.unquote: %XX runs decoded as UTF-8, anything else kept. */
export function unquote(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => new TextDecoder().decode(Buffer.from(run.replaceAll('%', ''), 'hex')));
}
