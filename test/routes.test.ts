import t from 'tap';
import { allOperations, lazyModules, operations as loadedAtStart } from '../src/host/registry.js';
import { jobKindDefined } from '../src/shard/jobs.js';
import { pageRoutes, routes } from '../src/routes.js';
import { DEVIATIONS, findTemplate } from './helpers/openapi.js';
import { UNDOCUMENTED } from './helpers/undocumented.js';

t.test('route table', async (t) => {
  // Before anything loads them: the lazily loaded modules serve exactly what they are listed for,
  // and define their job kinds when they load.
  t.test('lazily loaded modules', async (t) => {
    const eager = new Set(Object.keys(loadedAtStart));
    for (const m of lazyModules) {
      for (const op of m.ops) t.notOk(eager.has(op), `${op} is not loaded with the server`);
      for (const kind of m.jobKinds ?? []) t.notOk(jobKindDefined(kind), `job kind ${kind} is not defined before its module loads`);
      t.same(Object.keys(await m.load()).sort(), [...m.ops].sort(), `the module of ${m.ops[0]} serves what it is listed for`);
      for (const kind of m.jobKinds ?? []) t.ok(jobKindDefined(kind), `loading the module of ${m.ops[0]} defines job kind ${kind}`);
    }
  });

  const operations = await allOperations();

  t.test('every route names an operation the shards run', async (t) => {
    for (const route of [...routes, ...pageRoutes]) t.ok(operations[route.op], `${route.method} ${route.path} -> ${route.op} exists`);
  });

  t.test('every operation is reachable by a route', async (t) => {
    const routed = new Set([...routes, ...pageRoutes].map((r) => r.op));
    for (const name of Object.keys(operations)) t.ok(routed.has(name), `${name} has a route`);
  });

  t.test('no method and path is listed twice', async (t) => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    t.same([...new Set(keys)], keys, 'routes are unique');
  });

  t.test('every route is in the OpenAPI reference, or a documented deviation', async (t) => {
    for (const route of routes) {
      const documented = DEVIATIONS.some((d) => d.method === route.method && d.path === route.path) || UNDOCUMENTED.some((u) => u.method === route.method && u.path === route.path);
      t.ok(documented || findTemplate(route.method, route.path), `${route.method} ${route.path} is in the reference`);
    }
  });
});
