import t from 'tap';
import { operations } from '../src/api/registry.js';
import { pageRoutes, routes } from '../src/routes.js';
import { DEVIATIONS, findTemplate } from './helpers/openapi.js';
import { UNDOCUMENTED } from './helpers/undocumented.js';

t.test('route table', async (t) => {
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
