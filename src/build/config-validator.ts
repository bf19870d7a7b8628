import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';

/**
 * Compiles schemas/config.schema.json into dist/src/lib/config-validator.cjs, part of `npm run
 * build`: Ajv's standalone code, the validator lib/config.ts would otherwise build at every start.
 * The main thread needs Ajv for nothing else, and Ajv's modules held 1.1 MB of its heap for as
 * long as the server ran (P4). What the code requires of Ajv at run time is one small helper
 * (ajv/dist/runtime/ucs2length, string lengths in code points). It carries the digest of the
 * schema it was compiled from: a schema changed since (a build by tsc alone) is compiled at the
 * start as before.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The schema's text, and its digest: the code carries it, and lib/config.ts checks it. */
export function configSchema(): { text: string; digest: string } {
  const text = readFileSync(join(root, 'schemas', 'config.schema.json'), 'utf8');
  return { text, digest: createHash('sha256').update(text).digest('hex') };
}

export function configValidatorCode(): string {
  const { text, digest } = configSchema();
  const ajv = new Ajv({ allErrors: false, code: { source: true } });
  const validate = ajv.compile(JSON.parse(text));
  return `${standaloneCode.default(ajv, validate)}\nmodule.exports.schemaDigest = ${JSON.stringify(digest)};\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(join(root, 'dist', 'src', 'lib', 'config-validator.cjs'), configValidatorCode());
