import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { invalidArgument, invalidJson, missingArgument } from './errors.js';
import { parseJsonField, type InputLimits } from './input-limits.js';

/** Parameter schema: JSON Schema properties (ajv), path parameters included. */
export interface ParamSchema {
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
}

/**
 * Parameter decoding and validation.
 *
 * Clients send every parameter as text (query string, urlencoded or multipart), or as JSON values
 * in a JSON body. Lists and objects arrive as JSON text inside a field. So, per the operation's
 * schema: a string for an array/object parameter is JSON-decoded (INVALID_JSON if it is not
 * JSON); for a union that admits an array or object (`to` is a name, an id or a list), JSON is
 * tried and the string kept if it does not parse; scalars are coerced by ajv ("true" -> true,
 * "12" -> 12). The first problem becomes a Zulip-shaped 400 that names the parameter.
 *
 * Because of that coercion a union must be an `anyOf` with the narrowest type first
 * (`[{type: 'integer'}, {type: 'string'}]`): under `oneOf`, 5 would match both branches.
 *
 * ajv's coercion is loose where the reference is strict: it reads "0x10", "1e3" and " 5" as
 * numbers and true as 1 (so `to=true` sent to channel 1). So before ajv, every value in a
 * number position must be a number or a plain decimal string (`strictNumbers`), and a
 * union's JSON text is decoded only into the list or object it stands for: `to=true` stays the
 * channel name "true".
 */
let ajvs: { coercing: Ajv; exact: Ajv } | null = null;

/**
 * The two validators' compilers, made with the first schema compiled. Ajv is some 60 modules,
 * which a shard thread loaded during the start, before any request needs one (P7: a start is
 * mostly module loading); the first request after a start loads it instead.
 */
function compilers(): { coercing: Ajv; exact: Ajv } {
  if (ajvs) return ajvs;
  const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  return (ajvs = {
    coercing: new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, strict: false }),
    /** For a union's text that is not an integer: ajv would coerce "2.0" into an integer branch. */
    exact: new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: false }),
  });
}

interface Compiled {
  validate: ValidateFunction;
  /**
   * Parameters that are a union of a number and a string (`to`, `anchor`): validated apart, so
   * that text which is not a plain integer stays text (`to=2.0` is not channel 2).
   */
  unions: Map<string, { coercing: ValidateFunction; exact: ValidateFunction }>;
  decode: Map<string, 'json' | 'maybe-json'>;
  known: Set<string>;
  /** The parameters with a number somewhere in their schema: the only ones strictNumbers walks. */
  numeric: Set<string>;
}

const cache = new WeakMap<ParamSchema, Compiled>();

const typeCache = new WeakMap<object, Set<string>>();

function typesOf(schema: Record<string, unknown>): Set<string> {
  const cached = typeCache.get(schema);
  if (cached) return cached;
  const out = new Set<string>();
  typeCache.set(schema, out);
  const t = schema.type;
  if (typeof t === 'string') out.add(t);
  else if (Array.isArray(t)) for (const x of t) out.add(x);
  for (const key of ['oneOf', 'anyOf']) {
    const alts = schema[key];
    if (Array.isArray(alts)) for (const alt of alts) for (const x of typesOf(alt)) out.add(x);
  }
  return out;
}

function compile(schema: ParamSchema): Compiled {
  let compiled = cache.get(schema);
  if (compiled) return compiled;
  const decode = new Map<string, 'json' | 'maybe-json'>();
  for (const [name, prop] of Object.entries(schema.properties)) {
    const types = typesOf(prop);
    const structured = types.has('array') || types.has('object');
    if (structured) decode.set(name, types.has('string') ? 'maybe-json' : 'json');
  }
  const ajv = compilers();
  const unions = new Map<string, { coercing: ValidateFunction; exact: ValidateFunction }>();
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [name, prop] of Object.entries(schema.properties)) {
    const types = typesOf(prop);
    if (!((prop.anyOf || prop.oneOf) && types.has('string') && (types.has('integer') || types.has('number')))) {
      properties[name] = prop;
      continue;
    }
    const one = { type: 'object', properties: { [name]: prop } };
    unions.set(name, { coercing: ajv.coercing.compile(one), exact: ajv.exact.compile(one) });
    properties[name] = {};
  }
  compiled = {
    validate: ajv.coercing.compile({ type: 'object', properties, required: schema.required ?? [] }),
    unions,
    decode,
    known: new Set(Object.keys(schema.properties)),
    numeric: new Set(Object.entries(schema.properties).filter(([, prop]) => /"(integer|number)"/.test(JSON.stringify(prop))).map(([name]) => name)),
  };
  cache.set(schema, compiled);
  return compiled;
}

const INTEGER_TEXT = /^-?\d+$/;
const NUMBER_TEXT = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** Whether `schema` takes `value` as it is, with no coercion (a union's branch that fits it). */
function takesAsIs(schema: Record<string, unknown>, value: unknown): boolean {
  if (Array.isArray(schema.enum)) return schema.enum.includes(value);
  const types = typesOf(schema);
  if (types.size === 0) return true;
  if (Array.isArray(value)) return types.has('array');
  if (value === null) return types.has('null');
  const t = typeof value;
  if (t === 'number') return types.has('number') || (types.has('integer') && Number.isInteger(value));
  return types.has(t);
}

/**
 * The first value in a number position that is neither a number nor a plain decimal string, or
 * null. Follows the schema through items, properties and unions; values nested in lists came
 * from JSON, so only a boolean or an odd string can be wrong there.
 */
function strictNumbers(schema: Record<string, unknown> | undefined, value: unknown, path: string): { path: string; integer: boolean } | null {
  if (!schema || value === undefined) return null;
  const alts = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  if (alts) {
    const fit = alts.find((alt) => takesAsIs(alt, value)) ?? alts.find((alt) => typesOf(alt).has('integer') || typesOf(alt).has('number'));
    return fit ? strictNumbers(fit, value, path) : null;
  }
  const types = typesOf(schema);
  const integer = types.has('integer') && !types.has('number');
  if ((integer || types.has('number')) && !types.has(typeof value)) {
    if (typeof value === 'boolean') return { path, integer };
    if (typeof value === 'string' && !(integer ? INTEGER_TEXT : NUMBER_TEXT).test(value)) return { path, integer };
  }
  if (Array.isArray(value) && schema.items && typeof schema.items === 'object') {
    for (let i = 0; i < value.length; i++) {
      const bad = strictNumbers(schema.items as Record<string, unknown>, value[i], `${path}/${i}`);
      if (bad) return bad;
    }
  } else if (value && typeof value === 'object' && schema.properties) {
    const props = schema.properties as Record<string, Record<string, unknown>>;
    for (const [key, item] of Object.entries(value)) {
      const bad = strictNumbers(props[key], item, `${path}/${key}`);
      if (bad) return bad;
    }
  }
  return null;
}

function notANumber(bad: { path: string; integer: boolean }) {
  const { top, full } = varName(bad.path);
  return invalidArgument(top, `${full} is not ${bad.integer ? 'an integer' : 'a number'}`);
}

/** Limits for JSON text decoded in a parameter, when the caller gives none. */
const DEFAULT_LIMITS: InputLimits = { params: 1000, depth: 32 };

/** `/user_ids/0` -> `user_ids[0]`, as the reference names nested values. */
function varName(path: string): { top: string; full: string } {
  const parts = path.split('/').slice(1);
  const top = parts[0] ?? '';
  return { top, full: top + parts.slice(1).map((p) => `[${p}]`).join('') };
}

function toApiError(e: ErrorObject) {
  if (e.keyword === 'required') return missingArgument((e.params as { missingProperty: string }).missingProperty);
  const { top, full } = varName(e.instancePath);
  const p = e.params as Record<string, unknown>;
  const messages: Record<string, () => string> = {
    type: () => {
      const t = String(p.type).split(',')[0];
      const noun: Record<string, string> = { integer: 'an integer', number: 'a number', boolean: 'a boolean', string: 'a string', array: 'a list', object: 'a dict' };
      return noun[t] ? `${full} is not ${noun[t]}` : `Invalid ${full}`;
    },
    maxLength: () => `${full} is too long (limit: ${p.limit} characters)`,
    minLength: () => `${full} is too short`,
    minimum: () => `${full} is too small`,
    maximum: () => `${full} is too large`,
  };
  return invalidArgument(top, (messages[e.keyword] ?? (() => `Invalid ${full}`))());
}

/**
 * Decodes and validates `raw` against the schema. Returns the typed parameters and the names of
 * parameters the operation does not know (for `ignored_parameters_unsupported`).
 */
export function parseParams<P>(schema: ParamSchema | undefined, raw: Record<string, unknown>, pathParams: Record<string, string>, limits: InputLimits = DEFAULT_LIMITS): { params: P; ignored: string[] } {
  const compiled = compile(schema ?? { properties: {} });
  const params: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (!compiled.known.has(name)) {
      ignored.push(name);
      continue;
    }
    const mode = compiled.decode.get(name);
    if (mode && typeof value === 'string') {
      let decoded: unknown;
      try {
        decoded = parseJsonField(name, value, limits);
      } catch (err) {
        if (!(err instanceof SyntaxError)) throw err;
        if (mode === 'json') throw invalidJson(name);
        decoded = value;
      }
      // A union keeps the text unless it is the list or object the union allows.
      params[name] = mode === 'maybe-json' && (decoded === null || typeof decoded !== 'object') ? value : decoded;
    } else params[name] = value;
    const bad = compiled.numeric.has(name) ? strictNumbers(schema!.properties[name], params[name], `/${name}`) : null;
    if (bad) throw notANumber(bad);
  }
  Object.assign(params, pathParams);
  for (const [name, { coercing, exact }] of compiled.unions) {
    if (params[name] === undefined) continue;
    const one = { [name]: params[name] };
    const validate = typeof one[name] === 'string' && !INTEGER_TEXT.test(one[name] as string) ? exact : coercing;
    if (!validate(one)) throw toApiError(validate.errors![0]);
    params[name] = one[name];
  }
  if (!compiled.validate(params)) throw toApiError(compiled.validate.errors![0]);
  return { params: params as P, ignored };
}
