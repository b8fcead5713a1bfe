import t from 'tap';
import { buildRoutes, type RouteDeps } from '../../src/http/routes.ts';
import { docRows } from '../support/doc-tables.ts';

// Building the table only creates handlers; no route is called, so no dependency is needed.
const routes = buildRoutes({} as RouteDeps).map(
  (route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`,
);
const documented = docRows('docs/api.md')
  .map((cells) => /^`((?:GET|POST|PUT|DELETE) \/\S+)`$/.exec(cells[0] ?? '')?.[1])
  .filter((endpoint) => endpoint !== undefined);

t.test('docs/api.md has a row for every route', async (t) => {
  for (const route of routes) t.ok(documented.includes(route), `${route} is documented`);
});

t.test('docs/api.md documents no route the service does not have', async (t) => {
  t.ok(documented.length > 0, 'the endpoint tables are found');
  for (const endpoint of documented) t.ok(routes.includes(endpoint), `${endpoint} is a route`);
  t.equal(new Set(documented).size, documented.length, 'no endpoint has two rows');
});
