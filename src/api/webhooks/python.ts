/**
 * How the reference's Python renders values into its messages, for integrations whose texts
 * put payload values through str(), str.splitlines() or string.punctuation.
 */

/** Python's string.punctuation */
export const PY_PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

/** Python's truth of a JSON value: null, false, 0, "", [] and {} are false. */
export function pyTruthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  return typeof v !== 'object' || Object.keys(v).length > 0;
}

/** repr() of a str: single quotes unless the text has one and no double quote. */
function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const c of s) {
    if (c === quote || c === '\\') out += `\\${c}`;
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (c < ' ' || c === '\x7f') out += `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
    else out += c;
  }
  return `${quote}${out}${quote}`;
}

/**
 * A JSON number as Python prints it. JSON.parse cannot tell 1.0 from 1, so whole numbers print
 * as ints; otherwise repr() and JavaScript agree but for the exponent's form.
 */
function pyNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return String(n).replace(/e([+-])(\d)$/, 'e$10$2');
}

/** repr() of a JSON value. */
export function pyRepr(value: unknown): string {
  if (typeof value === 'string') return reprString(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${reprString(k)}: ${pyRepr(v)}`).join(', ')}}`;
  return pyStr(value);
}

/** str() of a JSON value. */
export function pyStr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return pyNumber(value);
  if (typeof value === 'string') return value;
  return pyRepr(value);
}

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

/** urllib.parse.unquote: percent-decoding as UTF-8, malformed escapes left as they are. */
export function unquote(s: string): string {
  return s.replace(/(%[0-9a-fA-F]{2})+/g, (run) => {
    const bytes = Buffer.from(run.replace(/%/g, ''), 'hex');
    return bytes.toString('utf8');
  });
}
