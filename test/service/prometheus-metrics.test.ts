// GET /metrics against the real service: who may read it (keys, the scrape token), the exposition
// parsed with a real Prometheus parser, every family of docs/prometheus.md exported and no other,
// and the counters equal to what the API says after a known ingest.
import parsePrometheusTextFormat, { type Family } from 'parse-prometheus-text-format';
import t from 'tap';
import { connectRaw, type RawClient } from '../stomp/helpers.ts';
import { docRows, docText } from '../support/doc-tables.ts';
import { expectError } from '../support/events.ts';
import { keyHeaders } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';
import { waitUntil } from './alerts-helpers.ts';
import { getMetrics, waitForMetrics } from './helpers.ts';

const SCRAPE_TOKEN = 'prometheus-scrape-token-0123456789abcdef';
const svc = await startTestService(t, {
  METRICS_REFRESH_MS: '50',
  RULE_EVALUATION_MS: '100',
  METRICS_SCRAPE_TOKEN: SCRAPE_TOKEN,
});

async function createKey(scope: 'ingest' | 'read'): Promise<string> {
  const res = await svc.request('/api/v1/keys', { json: { name: `prometheus-${scope}`, scope } });
  if (res.status !== 201) throw new Error(`key not created: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}
const ingestKey = await createKey('ingest');
const readKey = await createKey('read');

const scrapeWith = (authorization?: string): Promise<Response> =>
  fetch(`${svc.base}/metrics`, authorization === undefined ? {} : { headers: { authorization } });

/** The exposition, parsed, by family name. */
async function scrape(): Promise<Map<string, Family>> {
  const res = await scrapeWith(`Bearer ${readKey}`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status} ${text}`);
  return new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
}

/** The value of `name`'s sample whose labels include `labels`, as a number. */
function valueOf(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const sample = families
    .get(name)
    ?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  if (sample === undefined || !('value' in sample)) {
    throw new Error(`no sample of ${name} ${JSON.stringify(labels)}`);
  }
  return Number(sample.value);
}

/** The samples of a counter labelled by `label`, as a map of label value -> count (zeros left out). */
function byLabel(families: Map<string, Family>, name: string, label: string) {
  const counts: Record<string, number> = {};
  for (const m of families.get(name)?.metrics ?? []) {
    if ('value' in m && Number(m.value) > 0) counts[m.labels?.[label] ?? ''] = Number(m.value);
  }
  return counts;
}

const postEvent = (body: unknown, key = ingestKey) =>
  fetch(`${svc.base}/api/v1/events`, {
    method: 'POST',
    headers: { ...keyHeaders(key), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

t.test('who may read it', async (t) => {
  await expectError(t, await scrapeWith(), 401, 'UNAUTHORIZED');
  await expectError(t, await scrapeWith(`Bearer ${ingestKey}`), 403, 'FORBIDDEN');
  await expectError(t, await scrapeWith(`Bearer ${SCRAPE_TOKEN}x`), 401, 'UNAUTHORIZED');
  for (const [who, authorization] of [
    ['a read key', `Bearer ${readKey}`],
    ['the scrape token', `Bearer ${SCRAPE_TOKEN}`],
  ] as const) {
    const res = await scrapeWith(authorization);
    t.equal(res.status, 200, `${who}: 200`);
    t.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8', who);
    t.match(await res.text(), /^# HELP vigil_/, who);
  }
  const admin = await svc.request('/metrics');
  t.equal(admin.status, 200, 'an admin key: 200');
  await admin.text();
});

t.test('the OpenAPI document has it, answering text', async (t) => {
  const doc = (await (await svc.request('/api/v1/openapi.json')).json()) as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: object }> }>>;
  };
  const get = doc.paths['/metrics']?.get;
  t.ok(get, 'GET /metrics is documented');
  t.same(Object.keys(get?.responses['200']?.content ?? {}), ['text/plain; version=0.0.4']);
});

t.test('the counters match the API after a known ingest', async (t) => {
  const singles = [
    { eventType: 'checkout.paid', source: 'shop', severity: 'INFO' },
    { eventType: 'checkout.paid', source: 'shop', severity: 'ERROR' },
    { eventType: 'login', source: 'auth', severity: 'WARNING' },
    { eventType: 'login', source: 'auth' },
    { eventType: 'page "view"\nodd', source: 'web', severity: 'CRITICAL' },
  ];
  for (const event of singles) t.equal((await postEvent(event)).status, 202);
  await expectError(t, await postEvent({ source: 'shop' }), 400, 'VALIDATION_FAILED', [
    'eventType',
  ]);
  const batch = await fetch(`${svc.base}/api/v1/events/batch`, {
    method: 'POST',
    headers: { ...keyHeaders(ingestKey), 'content-type': 'application/json' },
    body: JSON.stringify([
      { eventType: 'login', source: 'auth' },
      { eventType: 'search', source: 'web' },
      { eventType: '', source: 'web' },
    ]),
  });
  t.equal(batch.status, 202);
  t.match(await batch.json(), { accepted: 2, rejected: 1 });
  const posted = singles.length + 2;

  const snapshot = await waitForMetrics(
    svc,
    (s) => s.summary.totalEvents === posted,
    `${posted} events counted`,
  );
  const families = await scrape();
  t.equal(valueOf(families, 'vigil_ingest_events_total', { outcome: 'accepted' }), posted);
  t.equal(valueOf(families, 'vigil_ingest_events_total', { outcome: 'rejected' }), 2);
  const requests = (path: string, outcome: string) =>
    valueOf(families, 'vigil_ingest_requests_total', { path, outcome });
  t.equal(requests('/api/v1/events', 'accepted'), singles.length);
  t.equal(requests('/api/v1/events', 'validation_failed'), 1);
  t.equal(requests('/api/v1/events/batch', 'accepted'), 1);
  t.equal(requests('/api/v1/events', 'overloaded'), 0, 'ingest refusals are there at 0');

  t.same(byLabel(families, 'vigil_events_by_type_total', 'event_type'), snapshot.eventsByType);
  t.same(byLabel(families, 'vigil_events_by_source_total', 'source'), snapshot.eventsBySource);
  t.same(
    byLabel(families, 'vigil_events_by_severity_total', 'severity'),
    Object.fromEntries(Object.entries(snapshot.eventsBySeverity).filter(([, n]) => n > 0)),
  );

  const batches = families.get('vigil_ingest_batch_events')?.metrics[0];
  t.ok(batches !== undefined && 'buckets' in batches, 'batch sizes are a histogram');
  if (batches !== undefined && 'buckets' in batches) {
    t.equal(Number(batches.sum), posted, 'every committed event went through a batch');
    t.equal(batches.buckets['+Inf'], batches.count);
    const commits = families.get('vigil_ingest_commit_seconds')?.metrics[0];
    t.equal(commits !== undefined && 'count' in commits ? commits.count : null, batches.count);
  }
  t.equal(valueOf(families, 'vigil_ingest_queue_events'), 0, 'nothing left queued');
  t.equal(valueOf(families, 'vigil_ingest_queue_limit_events'), 20000);
  t.equal(valueOf(families, 'vigil_storage_threads'), 1);
  t.equal(valueOf(families, 'vigil_metrics_actor_up'), 1);
  t.equal(valueOf(families, 'vigil_ingest_batch_failures_total'), 0);
  t.equal(
    valueOf(families, 'vigil_notifications_total', { channel: 'slack', outcome: 'failed' }),
    0,
  );
  t.match(families.get('vigil_build_info')?.metrics[0], { labels: { version: /^\d+\.\d+/ } });
});

t.test('the evaluation ticks are a histogram', async (t) => {
  const ticked = await waitUntil(
    scrape,
    (f) => {
      const ticks = f.get('vigil_rule_evaluation_seconds')?.metrics[0];
      return ticks !== undefined && 'count' in ticks && Number(ticks.count) > 0;
    },
    'an evaluation tick',
  );
  const ticks = ticked.get('vigil_rule_evaluation_seconds')?.metrics[0];
  t.ok(ticks !== undefined && 'buckets' in ticks && ticks.buckets['+Inf'] === ticks.count);
  t.equal(valueOf(ticked, 'vigil_rules_active'), 0);
});

t.test('refused requests count under their reason', async (t) => {
  const before = await scrape();
  const requests = (f: Map<string, Family>, outcome: string) =>
    valueOf(f, 'vigil_ingest_requests_total', { path: '/api/v1/events', outcome });
  await expectError(t, await postEvent({ eventType: 'x' }), 400, 'VALIDATION_FAILED', ['source']);
  await expectError(t, await postEvent({ eventType: 'x', source: 'y' }, readKey), 403, 'FORBIDDEN');
  const noKey = await fetch(`${svc.base}/api/v1/events`, { method: 'POST', body: '{}' });
  await expectError(t, noKey, 401, 'UNAUTHORIZED');
  const after = await scrape();
  for (const outcome of ['validation_failed', 'forbidden', 'unauthorized'])
    t.equal(requests(after, outcome), requests(before, outcome) + 1, outcome);
  t.equal(
    valueOf(after, 'vigil_ingest_events_total', { outcome: 'rejected' }),
    valueOf(before, 'vigil_ingest_events_total', { outcome: 'rejected' }) + 3,
    'each refused single event is a rejected event',
  );
  t.equal(requests(after, 'accepted'), requests(before, 'accepted'));
});

t.test('STOMP sessions are counted', async (t) => {
  const client: RawClient = await connectRaw(`ws://127.0.0.1:${svc.service.port}/ws`);
  const open = await waitUntil(
    scrape,
    (f) => valueOf(f, 'vigil_stomp_sessions') === 1,
    'a session',
  );
  t.equal(valueOf(open, 'vigil_stomp_sessions'), 1);
  client.ws.close();
  await client.closed;
  await waitUntil(scrape, (f) => valueOf(f, 'vigil_stomp_sessions') === 0, 'no session');
});

/** The metric names of a table of docs/prometheus.md, with their type and labels. */
function documented(section: 'main' | 'cluster'): Map<string, { type: string; labels: string[] }> {
  const rows = docRows('docs/prometheus.md').filter((cells) =>
    /^`vigil_\w+`$/.test(cells[0] ?? ''),
  );
  const cluster = new Set(
    docText('docs/prometheus.md')
      .split('## Cluster mode only')[1]
      ?.match(/`vigil_\w+`/g),
  );
  return new Map(
    rows
      .filter((cells) => cluster.has(cells[0] ?? '') === (section === 'cluster'))
      .map((cells) => [
        (cells[0] ?? '').slice(1, -1),
        {
          type: cells[1] ?? '',
          labels: (cells[2] ?? '').match(/[a-z_]+/g)?.sort() ?? [],
        },
      ]),
  );
}

t.test('docs/prometheus.md lists exactly what is exported', async (t) => {
  const families = await scrape();
  const listed = documented('main');
  t.ok(listed.size >= 25, 'the table is found');
  t.same([...families.keys()].sort(), [...listed.keys()].sort(), 'the same families');
  for (const [name, family] of families) {
    t.equal(family.type.toLowerCase(), listed.get(name)?.type, `${name}: its type`);
    const labels = new Set(
      family.metrics.flatMap((m) => Object.keys(m.labels ?? {})).filter((l) => l !== 'le'),
    );
    t.same([...labels].sort(), listed.get(name)?.labels, `${name}: its labels`);
    t.match(family.help, /\S/, `${name}: a help text`);
  }
  const cluster = documented('cluster');
  t.ok(cluster.size > 0, 'the cluster-mode table is found');
  for (const name of cluster.keys()) t.notOk(families.has(name), `${name}: not without NATS_URL`);
});

t.test('GET /api/v1/metrics is unchanged by it', async (t) => {
  const snapshot = await getMetrics(svc);
  t.ok(snapshot.summary.totalEvents > 0);
});
