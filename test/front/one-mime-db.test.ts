import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import t from 'tap';

/**
 * The front end's body parser (koa-bodyparser, co-body) and koa's content negotiation (accepts)
 * use koa's own type-is and mime-types (npm overrides in package.json): one MIME database in the
 * main thread, not four (bench/RESULTS.md, the idle5 session).
 */
const require = createRequire(import.meta.url);
const from = (pkg: string, dep: string) => require.resolve(dep, { paths: [dirname(require.resolve(`${pkg}/package.json`))] });

t.test('one type-is, one mime-types, one mime-db', async (t) => {
  const koas = { 'type-is': from('koa', 'type-is'), 'mime-types': from('koa', 'mime-types') };
  t.equal(from('koa-bodyparser', 'type-is'), koas['type-is'], 'koa-bodyparser uses koa\'s type-is');
  t.equal(from('co-body', 'type-is'), koas['type-is'], 'so does co-body');
  t.equal(from('accepts', 'mime-types'), koas['mime-types'], 'accepts uses koa\'s mime-types');
  t.equal(from(dirname(koas['type-is']), 'mime-types'), koas['mime-types'], 'as type-is does');
  const db = from(dirname(koas['mime-types']), 'mime-db');
  t.equal(db, require.resolve('mime-db'), 'and through it the one mime-db');
});
