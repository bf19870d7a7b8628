import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { invalidArgument, invalidJson, missingArgument } from './errors.js';

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
 */
const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, strict: false });

interface Compiled {
  validate: ValidateFunction;
  decode: Map<string, 'json' | 'maybe-json'>;
  known: Set<string>;
}

const cache = new WeakMap<ParamSchema, Compiled>();

function typesOf(schema: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
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
  compiled = {
    validate: ajv.compile({ type: 'object', properties: schema.properties, required: schema.required ?? [] }),
    decode,
    known: new Set(Object.keys(schema.properties)),
  };
  cache.set(schema, compiled);
  return compiled;
}

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
export function parseParams<P>(schema: ParamSchema | undefined, raw: Record<string, unknown>, pathParams: Record<string, string>): { params: P; ignored: string[] } {
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
      try {
        params[name] = JSON.parse(value);
      } catch {
        if (mode === 'json') throw invalidJson(name);
        params[name] = value;
      }
    } else params[name] = value;
  }
  Object.assign(params, pathParams);
  if (!compiled.validate(params)) throw toApiError(compiled.validate.errors![0]);
  return { params: params as P, ignored };
}
