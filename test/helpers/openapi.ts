import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { LATER_EVENTS, LATER_REGISTER_FIELDS, laterErrors } from './openapi-later.js';
import { UNDOCUMENTED } from './undocumented.js';

/**
 * Validates our 2xx responses against the reference server's OpenAPI description
 * (test/reference/zulip-openapi.yaml, Zulip 10.2). The operation is found from the method and
 * the concrete path; its 200 response schema is checked with ajv, additionalProperties as the
 * schema says. Deliberate differences are listed in DEVIATIONS with the reason.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const yamlPath = resolve(root, 'test/reference/zulip-openapi.yaml');
const cachePath = resolve(root, 'dist/.openapi.json');

/**
 * Endpoints and fields where we knowingly differ from the reference, and why. Without `fields`
 * the endpoint's response is not checked; with them, those fields (dotted paths, `[]` for every
 * element of a list) are removed before the check.
 */
export const DEVIATIONS: { method: string; path: string; fields?: string[]; reason: string }[] = [
  { method: 'PATCH', path: '/settings/display', reason: 'a deprecated alias of PATCH /settings (feature level 80), no longer documented' },
  { method: 'PATCH', path: '/settings/notifications', reason: 'a deprecated alias of PATCH /settings (feature level 80), no longer documented' },
  { method: 'PATCH', path: '/realm', reason: 'the reference documents no PATCH /realm; settings reach clients through /register' },
  { method: 'POST', path: '/submessage', reason: 'the reference serves it (widgets: polls, to-do lists) but does not document it' },
  { method: 'POST', path: '/messages/{message_id}/report', reason: 'feature level 382, after the 10.2 description; answers {result, msg}' },
  {
    method: 'POST',
    path: '/register',
    fields: ['max_channel_folder_name_length', 'max_channel_folder_description_length', 'subscriptions[].partial_subscribers', 'never_subscribed[].partial_subscribers'],
    reason: 'feature level 410 and 412 keys that our issues ask for; the 10.2 description predates them',
  },
  {
    method: 'GET',
    path: '/events',
    fields: ['events[].local_message_id'],
    reason: 'sent to the sending queue as the reference does, but missing from the 10.2 event schema',
  },
];

/** The same for events checked one by one with checkEvent, by event type. */
export const EVENT_DEVIATIONS: { type: string; fields: string[]; reason: string }[] = [
  { type: 'message', fields: ['local_message_id'], reason: 'see GET /events above' },
];

/** A copy of `body` without the given dotted paths. */
function without(body: unknown, fields: string[]): unknown {
  const copy = structuredClone(body);
  const drop = (node: unknown, parts: string[]): void => {
    if (!node || typeof node !== 'object') return;
    const [head, ...rest] = parts;
    if (head.endsWith('[]')) {
      const list = (node as Record<string, unknown>)[head.slice(0, -2)];
      if (Array.isArray(list)) for (const item of list) drop(item, rest);
    } else if (rest.length === 0) delete (node as Record<string, unknown>)[head];
    else drop((node as Record<string, unknown>)[head], rest);
  };
  for (const field of fields) drop(copy, field.split('.'));
  return copy;
}

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, any> };

/**
 * OpenAPI 3.0's `nullable` only means something beside a `type`; without one the schema admits
 * any value already. ajv refuses the bare form, which the reference uses in allOf overrides
 * (`avatar_url: {nullable: true}`), so it is dropped there.
 */
function dropBareNullable(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(dropBareNullable);
  if (node && typeof node === 'object') {
    const obj = node as Record<string, unknown>;
    if (obj.nullable === true && obj.type === undefined) delete obj.nullable;
    for (const value of Object.values(obj)) dropBareNullable(value);
  }
}

function loadDoc(): Doc {
  if (existsSync(cachePath) && statSync(cachePath).mtimeMs > statSync(yamlPath).mtimeMs) {
    const cached = JSON.parse(readFileSync(cachePath, 'utf8'));
    dropBareNullable(cached);
    return cached;
  }
  const doc = parse(readFileSync(yamlPath, 'utf8'), { maxAliasCount: -1 }) as Doc;
  dropBareNullable(doc);
  try {
    writeFileSync(cachePath, JSON.stringify(doc));
  } catch {
    // A read-only tree only costs the parse each time.
  }
  return doc;
}

let doc: Doc | null = null;
let ajv: Ajv | null = null;
const compiled = new Map<string, ValidateFunction | null>();

function templateRegex(template: string): RegExp {
  // `{name*}` (as in src/routes.ts) takes the rest of the path, slashes included.
  if (/\{\w+\*\}$/.test(template)) return new RegExp(`^${templateRegex(template.replace(/\{\w+\*\}$/, '')).source.slice(1, -1)}.+$`);
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+');
  return new RegExp(`^${escaped.replace(/\{[^}]+\}/g, '[^/]+')}$`);
}

/** Every method and path template the reference documents. */
export function referenceOperations(): { method: string; path: string }[] {
  doc ??= loadDoc();
  const methods = ['get', 'post', 'put', 'patch', 'delete'];
  return Object.entries(doc.paths).flatMap(([path, item]) => methods.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), path })));
}

/** The reference's path template for a concrete path: literal segments win over parameters. */
export function findTemplate(method: string, path: string): string | null {
  doc ??= loadDoc();
  const candidates = Object.keys(doc.paths)
    .filter((t) => doc!.paths[t][method.toLowerCase()] && templateRegex(t).test(path))
    .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  return candidates[0] ?? null;
}

const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function getAjv(): Ajv {
  doc ??= loadDoc();
  if (!ajv) {
    ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: 'zulip' } as object);
  }
  return ajv;
}

function validatorFor(method: string, template: string): ValidateFunction | null {
  const key = `${method} ${template}`;
  if (compiled.has(key)) return compiled.get(key)!;
  const ajv = getAjv();
  doc ??= loadDoc();
  let response = doc.paths[template][method.toLowerCase()].responses?.['200'];
  let base = `zulip#/paths/${pointer(template)}/${method.toLowerCase()}/responses/200`;
  if (response?.$ref) {
    base = `zulip${response.$ref}`;
    response = doc.components.responses[response.$ref.split('/').pop()];
  }
  const fn = response?.content?.['application/json']?.schema ? ajv.compile({ $ref: `${base}/content/application~1json/schema` }) : null;
  compiled.set(key, fn);
  return fn;
}

/** Throws with the schema errors when a 2xx body does not match the reference. */
export function checkResponse(method: string, path: string, body: unknown): void {
  const m = method.toUpperCase();
  // A deviation names a path template (`/messages/{message_id}/report`) or a concrete path.
  const deviation = DEVIATIONS.find((d) => d.method === m && (d.path === path || templateRegex(d.path).test(path)));
  if (deviation && !deviation.fields) return;
  if (deviation) body = without(body, deviation.fields!);
  body = checkLater(m, path, body);
  const own = UNDOCUMENTED.find((u) => u.method === m && templateRegex(u.path).test(path));
  if (own) {
    const key = `own ${m} ${own.path}`;
    if (!compiled.has(key)) compiled.set(key, getAjv().compile(own.schema));
    const validate = compiled.get(key)!;
    if (!validate(body)) fail(`${m} ${path} (${own.path}, test/helpers/undocumented.ts)`, validate);
    return;
  }
  const template = findTemplate(m, path);
  if (!template) throw new Error(`${m} ${path}: not in the OpenAPI reference; document it in DEVIATIONS if deliberate`);
  const validate = validatorFor(m, template);
  if (!validate) return;
  if (!validate(body)) fail(`${m} ${path} (${template})`, validate);
}

function fail(what: string, fn: ValidateFunction): never {
  const errors = fn.errors!.slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  throw new Error(`${what} does not match the reference schema:\n  ${errors.join('\n  ')}`);
}

/**
 * What is newer than the 10.2 description (helpers/openapi-later.ts) is checked against its later
 * shape and taken out: /register keys, events. (Newer endpoints are in helpers/undocumented.ts.)
 */
function checkLater(method: string, path: string, body: unknown): unknown {
  const fail = (what: string, errors: string[] | null) => {
    if (errors) throw new Error(`${what} does not match the reference's later schema:\n  ${errors.join('\n  ')}`);
  };
  if (!body || typeof body !== 'object') return body;
  const copy = { ...(body as Record<string, unknown>) };
  if (method === 'POST' && path === '/register') {
    for (const [name, schema] of Object.entries(LATER_REGISTER_FIELDS)) {
      if (!(name in copy)) continue;
      fail(`POST /register: ${name}`, laterErrors(schema, copy[name]));
      delete copy[name];
    }
  }
  if (method === 'GET' && path === '/events' && Array.isArray(copy.events)) {
    copy.events = copy.events.filter((event: Record<string, unknown>) => {
      const schema = LATER_EVENTS[event.type as string];
      if (schema) fail(`event ${event.type}/${event.op}`, laterErrors(schema, event));
      return !schema;
    });
  }
  return copy;
}

/** Throws unless an event (as emitted on a shard's bus) is one the reference's GET /events describes. */
export function checkEvent(event: Record<string, unknown>): void {
  const later = LATER_EVENTS[event.type as string];
  if (later) {
    const errors = laterErrors(later, { id: 0, ...event });
    if (errors) throw new Error(`event ${event.type}/${event.op} does not match the reference's later schema:\n  ${errors.join('\n  ')}`);
    return;
  }
  let fn = compiled.get('event');
  if (!fn) {
    fn = getAjv().compile({ $ref: 'zulip#/paths/~1events/get/responses/200/content/application~1json/schema' });
    compiled.set('event', fn);
  }
  const fields = EVENT_DEVIATIONS.filter((d) => d.type === event.type).flatMap((d) => d.fields);
  const body = { result: 'success', msg: '', queue_id: 'q', events: [{ id: 0, ...(without(event, fields) as object) }] };
  if (!fn(body)) fail(`event ${event.type}/${event.op}`, fn);
}
