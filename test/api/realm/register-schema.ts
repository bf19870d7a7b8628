import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';

/**
 * Checks /register fields one by one against the reference's /register response schema. The
 * shared checker (helpers/openapi.ts) compiles the whole response, which ajv refuses: some of
 * its subschemas set `nullable` without a `type`. Checking each field on its own compiles only
 * the subschemas these fields use.
 */
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const yamlPath = resolve(root, 'test/reference/zulip-openapi.yaml');
const base = 'zulip#/paths/~1register/post/responses/200/content/application~1json/schema/allOf/1/properties';

let state: { ajv: Ajv; known: Set<string> } | null = null;

function load() {
  if (state) return state;
  const doc = parse(readFileSync(yamlPath, 'utf8'), { maxAliasCount: -1 });
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ ...doc, $id: 'zulip' });
  const props = doc.paths['/register'].post.responses['200'].content['application/json'].schema.allOf[1].properties;
  return (state = { ajv, known: new Set(Object.keys(props)) });
}

/** The problems of each field: unknown to the reference, or not matching its schema. */
export function registerFieldErrors(fields: Record<string, unknown>): string[] {
  const { ajv, known } = load();
  const errors: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (!known.has(key)) {
      errors.push(`${key}: not a /register field`);
      continue;
    }
    const validate = ajv.getSchema(`${base}/${key}`) ?? ajv.compile({ $ref: `${base}/${key}` });
    if (!validate(value)) errors.push(`${key}: ${ajv.errorsText(validate.errors)}`);
  }
  return errors;
}
