// The dashboard served by the service (issue 19): / and its assets from memory, br / gzip / none as
// the client accepts, strong ETags and 304, a strict CSP whose hash matches the inline import map,
// every module the page imports reachable on this origin, and the first view under 250 KB compressed.
import { createHash } from 'node:crypto';
import t from 'tap';
import { loadDashboard } from '../../src/dashboard/assets.ts';
import { buildDashboard } from '../support/dashboard-build.ts';
import { startTestService } from '../support/service.ts';

await buildDashboard();
const svc = await startTestService(t);

const get = (path: string, headers: Record<string, string> = {}): Promise<Response> =>
  // No key: the page and its assets are public (they hold no data).
  fetch(svc.base + path, { headers: { 'accept-encoding': 'identity', ...headers } });

const html = await (await get('/')).text();
const importMap = /<script type="importmap">([^<]*)<\/script>/.exec(html)?.[1] ?? '';
const imports = (JSON.parse(importMap) as { imports: Record<string, string> }).imports;
const entry = /<script type="module" src="([^"]+)"/.exec(html)?.[1] ?? '';
const stylesheets = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map(
  (m) => m[1] ?? '',
);

t.test(
  'GET / is the page: HTML, no-cache, a strict CSP allowing only the import map inline',
  async (t) => {
    const res = await get('/');
    t.equal(res.status, 200);
    t.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    t.equal(res.headers.get('cache-control'), 'no-cache');
    t.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const csp = res.headers.get('content-security-policy') ?? '';
    const hash = createHash('sha256').update(importMap).digest('base64');
    t.match(csp, `script-src 'self' 'sha256-${hash}'`);
    t.match(csp, "default-src 'self'");
    t.match(csp, "connect-src 'self'");
    t.match(csp, "frame-ancestors 'none'");
    t.notMatch(csp, 'unsafe-inline');
    t.notMatch(csp, 'unsafe-eval');
    t.match(entry, /^\/assets\/[0-9a-f]{12}\/app\/dashboard\/web\/main\.js$/);
    t.same(Object.keys(imports).sort(), [
      '@stomp/stompjs',
      'htm',
      'htm/preact',
      'preact',
      'preact/hooks',
      'uplot',
    ]);
  },
);

t.test(
  'an encoding the client accepts, with a strong ETag per encoding and 304 on a match',
  async (t) => {
    const plain = await get(entry);
    const body = Buffer.from(await plain.arrayBuffer());
    t.equal(plain.headers.get('content-type'), 'text/javascript; charset=utf-8');
    t.equal(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    t.equal(plain.headers.get('content-encoding'), null);
    t.equal(plain.headers.get('vary'), 'Accept-Encoding');
    // fetch would decode for us: undici passes the raw bytes only when asked, so decode by hand.
    const raw = async (encoding: string) => {
      const res = await fetch(svc.base + entry, { headers: { 'accept-encoding': encoding } });
      return { res, bytes: Buffer.from(await res.arrayBuffer()) };
    };
    const br = await raw('gzip, deflate, br');
    t.equal(br.res.headers.get('content-encoding'), 'br');
    const gz = await raw('gzip');
    t.equal(gz.res.headers.get('content-encoding'), 'gzip');
    const tags = [plain, br.res, gz.res].map((r) => r.headers.get('etag'));
    t.equal(new Set(tags).size, 3, 'one ETag per encoding');
    for (const tag of tags) t.match(tag, /^"[A-Za-z0-9_-]+(-gz|-br)?"$/);
    // undici decodes br and gzip bodies itself: both give back the file.
    t.same(br.bytes, body);
    t.same(gz.bytes, body);
    const again = await get(entry, { 'if-none-match': tags[0] ?? '' });
    t.equal(again.status, 304);
    t.equal((await again.arrayBuffer()).byteLength, 0);
    const other = await get(entry, { 'if-none-match': '"something-else"' });
    t.equal(other.status, 200);
    await other.arrayBuffer();
    const head = await fetch(svc.base + entry, {
      method: 'HEAD',
      headers: { 'accept-encoding': 'identity' },
    });
    t.equal(head.status, 200);
    t.equal(head.headers.get('content-length'), String(body.length));
  },
);

t.test('unknown assets are a JSON 404; other paths keep the API 404', async (t) => {
  for (const path of ['/assets/nope.js', '/assets/000000000000/app/nope.js', '/index.html']) {
    const res = await get(path);
    t.equal(res.status, 404, path);
    t.equal(res.headers.get('content-type'), 'application/json');
    t.match(await res.json(), { status: 'error', code: 'NOT_FOUND' });
  }
});

/** Static imports of a module, resolved against its URL and the import map. */
function importsOf(source: string, url: string): string[] {
  const specifiers = [
    ...source.matchAll(/(?:import|export)\s*(?:[^'"]*?from\s*)?['"]([^'"]+)['"]/g),
  ].map((m) => m[1] ?? '');
  return specifiers.map((s) => imports[s] ?? new URL(s, `http://x${url}`).pathname);
}

t.test('the first view loads only this origin and weighs under 250 KB compressed', async (t) => {
  let total = 0;
  const sizeOf = async (path: string): Promise<Response> => {
    const res = await fetch(svc.base + path, { headers: { 'accept-encoding': 'br' } });
    t.equal(res.status, 200, path);
    t.equal(res.headers.get('content-encoding'), 'br', path);
    total += Number(res.headers.get('content-length'));
    return res;
  };
  await (await sizeOf('/')).text();
  for (const css of stylesheets) await (await sizeOf(css)).text();
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const path = queue.pop() as string;
    if (seen.has(path)) continue;
    seen.add(path);
    const source = await (await sizeOf(path)).text();
    t.notMatch(source, /sourceMappingURL/, `${path} names no source map`);
    queue.push(...importsOf(source, path));
  }
  t.ok(seen.has(imports.uplot ?? ''), 'uPlot is among the modules loaded');
  t.ok(total < 250 * 1024, `first view: ${(total / 1024).toFixed(1)} KB compressed`);
  t.comment(`first view: ${seen.size} modules, ${(total / 1024).toFixed(1)} KB brotli`);
});

t.test('without a build, / says how to make one and loads no script', async (t) => {
  const dashboard = await loadDashboard('/nonexistent-dashboard-build');
  t.equal(dashboard.built, false);
  const page = dashboard.assets.get('/')?.identity.body.toString() ?? '';
  t.match(page, 'npm run build');
  t.notMatch(page, '<script type="module"');
  t.ok(
    [...dashboard.assets.keys()].some((p) => p.endsWith('/vendor/uplot.js')),
    'vendor files',
  );
});
