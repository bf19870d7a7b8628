import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';

/**
 * Checks events against the reference OpenAPI file's GET /events response, as
 * helpers/openapi.ts checks HTTP responses (which it does for every request the tests make).
 * Type-less `nullable` keys (the reference's allOf overrides such as `creator_id:
 * {nullable: true}`) are dropped, as ajv refuses them; the base schemas already allow null.
 */
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const cachePath = resolve(root, 'dist/.openapi.json');
const yamlPath = [resolve(root, '../shared/reference/zulip-openapi.yaml'), resolve(root, 'shared/reference/zulip-openapi.yaml')].find(existsSync)!;

function stripTypelessNullable(node: unknown): void {
  if (Array.isArray(node)) node.forEach(stripTypelessNullable);
  else if (node && typeof node === 'object') {
    const obj = node as Record<string, unknown>;
    if ('nullable' in obj && !('type' in obj)) delete obj.nullable;
    Object.values(obj).forEach(stripTypelessNullable);
  }
}

let ajv: Ajv | null = null;
const validators = new Map<string, ValidateFunction>();

function compile(key: string, ref: string): ValidateFunction {
  let fn = validators.get(key);
  if (fn) return fn;
  if (!ajv) {
    const doc = existsSync(cachePath) ? JSON.parse(readFileSync(cachePath, 'utf8')) : parse(readFileSync(yamlPath, 'utf8'), { maxAliasCount: -1 });
    stripTypelessNullable(doc);
    ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: 'zulip' });
  }
  fn = ajv.compile({ $ref: ref });
  validators.set(key, fn);
  return fn;
}

function fail(what: string, fn: ValidateFunction): never {
  const errors = fn.errors!.slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  throw new Error(`${what} does not match the reference schema:\n  ${errors.join('\n  ')}`);
}

/** Throws unless an event (as emitted on the shard's bus, plus an id) is one the reference's GET /events describes. */
export function checkEvent(event: Record<string, unknown>): void {
  const fn = compile('event', 'zulip#/paths/~1events/get/responses/200/content/application~1json/schema');
  const body = { result: 'success', msg: '', queue_id: 'q', events: [{ id: 0, ...event }] };
  if (!fn(body)) fail(`event ${event.type}/${event.op}`, fn);
}
