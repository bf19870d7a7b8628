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
    fields: [
      'max_channel_folder_name_length',
      'max_channel_folder_description_length',
      'subscriptions[].partial_subscribers',
      'never_subscribed[].partial_subscribers',
      'channel_folders',
      'streams[].folder_id',
      'subscriptions[].folder_id',
      'unsubscribed[].folder_id',
      'never_subscribed[].folder_id',
    ],
    reason: 'feature level 389, 410 and 412 keys that our issues ask for (channel folders, folder_id on channels); the 10.2 description predates them',
  },
  { method: 'POST', path: '/users/{user_id}/status', reason: 'added to the reference after its 10.2 description (the spec lists it); the answer is the plain success' },
  { method: 'PATCH', path: '/realm/profile_fields/{field_id}', reason: 'served by the reference but missing from its 10.2 description; the answer is the plain success' },
  { method: 'DELETE', path: '/realm/profile_fields/{field_id}', reason: 'served by the reference but missing from its 10.2 description; the answer is the plain success' },
  { method: 'PATCH', path: '/users/me/profile_data', reason: 'served by the reference but missing from its 10.2 description; the answer is the plain success' },
  { method: 'DELETE', path: '/users/me/profile_data', reason: 'served by the reference but missing from its 10.2 description; the answer is the plain success' },
  // The channel folder endpoints (feature levels 389-418) are not in the 10.2 description: their
  // responses are checked against schemas written from the reference's current source, in
  // helpers/undocumented.ts. Below, the fields they add to documented responses.
  { method: 'GET', path: '/streams', fields: ['streams[].folder_id'], reason: 'folder_id on channels, feature level 389' },
  { method: 'GET', path: '/streams/{stream_id}', fields: ['stream.folder_id'], reason: 'folder_id on channels, feature level 389' },
  { method: 'GET', path: '/users/me/subscriptions', fields: ['subscriptions[].folder_id'], reason: 'folder_id on channels, feature level 389' },
  {
    method: 'GET',
    path: '/events',
    fields: ['events[].local_message_id'],
    reason: 'sent to the sending queue as the reference does, but missing from the 10.2 event schema',
  },
];

/** The same for events checked one by one with checkEvent, by event type. */
export const EVENT_DEVIATIONS: { type: string; when?: string; fields: string[]; reason: string }[] = [
  { type: 'message', fields: ['local_message_id'], reason: 'see GET /events above' },
  { type: 'stream', when: 'op=create', fields: ['streams[].folder_id'], reason: 'folder_id on channels, feature level 389' },
  { type: 'subscription', when: 'op=add', fields: ['subscriptions[].folder_id'], reason: 'folder_id on channels, feature level 389' },
  { type: 'stream', when: 'op=update,property=folder_id', fields: ['value'], reason: 'feature level 389: null when the channel leaves its folder, which 10.2 does not allow' },
  { type: 'channel_folder', fields: [''], reason: 'feature levels 389 (add, update) and 418 (reorder), after the 10.2 description; asserted in test/api/channel-folders/' },
];

/**
 * A copy of `body` without the given dotted paths. `list[]` walks every element of a list;
 * `list[k=v,k2=v2]` only the elements whose fields have those values, and as the last part it
 * removes those elements (events the 10.2 schema does not know).
 */
function without(body: unknown, fields: string[]): unknown {
  const copy = structuredClone(body);
  const selector = /^(\w+)\[([^\]]*)\]$/;
  const matches = (item: unknown, conds: string): boolean =>
    conds === '' || conds.split(',').every((c) => String((item as Record<string, unknown>)?.[c.split('=')[0]]) === c.split('=')[1]);
  const drop = (node: unknown, parts: string[]): void => {
    if (!node || typeof node !== 'object') return;
    const [head, ...rest] = parts;
    const sel = selector.exec(head);
    if (sel) {
      const record = node as Record<string, unknown>;
      const list = record[sel[1]];
      if (!Array.isArray(list)) return;
      if (rest.length === 0 && sel[2] !== '') record[sel[1]] = list.filter((item) => !matches(item, sel[2]));
      else for (const item of list) if (matches(item, sel[2])) drop(item, rest);
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

/**
 * Throws with the schema errors when a 2xx body does not match the reference. `strict` checks
 * against the 10.2 description alone, with no deviation or later field allowed: what the
 * reference's own API test suite would see.
 */
export function checkResponse(method: string, path: string, body: unknown, opts: { strict?: boolean } = {}): void {
  const m = method.toUpperCase();
  // A deviation names a path template (`/messages/{message_id}/report`) or a concrete path.
  const deviation = opts.strict ? undefined : DEVIATIONS.find((d) => d.method === m && (d.path === path || templateRegex(d.path).test(path)));
  if (deviation && !deviation.fields) return;
  if (deviation) body = without(body, deviation.fields!);
  if (!opts.strict) body = checkLater(m, path, body);
  if (m === 'GET' && path === '/events' && !opts.strict) body = without(body, eventDeviationPaths());
  const own = opts.strict ? undefined : UNDOCUMENTED.find((u) => u.method === m && templateRegex(u.path).test(path));
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

/**
 * The EVENT_DEVIATIONS as paths under a GET /events body: `events[type=T,when...].field`, or the
 * whole matching events for a field ''.
 */
function eventDeviationPaths(): string[] {
  return EVENT_DEVIATIONS.flatMap((d) => d.fields.map((f) => `events[type=${d.type}${d.when ? `,${d.when}` : ''}]${f === '' ? '' : `.${f}`}`));
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
  const [shown] = (without({ events: [event] }, eventDeviationPaths()) as { events: unknown[] }).events;
  if (shown === undefined) return;
  const body = { result: 'success', msg: '', queue_id: 'q', events: [{ id: 0, ...(shown as object) }] };
  if (!fn(body)) fail(`event ${event.type}/${event.op}`, fn);
}
