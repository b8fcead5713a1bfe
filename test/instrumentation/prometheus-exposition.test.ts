// The exposition of GET /metrics: sources become prom-client counters, gauges and histograms
// read on each scrape; the text parses with a real Prometheus parser; names are checked.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import t from 'tap';
import { PlainHistogram } from '../../src/telemetry/plain-histogram.ts';
import { createExposition } from '../../src/instrumentation/prometheus/exposition.ts';

void t.test('a plain histogram counts each value into the first bucket that holds it', (t) => {
  const histogram = new PlainHistogram([1, 5, 10]);
  for (const value of [0.5, 1, 3, 5, 7, 100]) histogram.observe(value);
  t.same(histogram.read(), {
    bounds: [1, 5, 10],
    cumulative: [2, 4, 5],
    sum: 116.5,
    count: 6,
  });
  t.throws(() => new PlainHistogram([1, 1]), /ascend/);
  t.end();
});

void t.test('sources are read on each scrape, histograms exported as counted', async (t) => {
  const exposition = createExposition();
  let total = 3;
  const histogram = new PlainHistogram([0.1, 1]);
  histogram.observe(0.05);
  histogram.observe(0.5);
  exposition.add({
    name: 'vigil_test_things_total',
    help: 'Things',
    kind: 'counter',
    labelNames: ['kind'],
    read: () => [
      { labels: { kind: 'a "quoted"\nkind' }, value: total },
      { labels: { kind: 'b' }, value: 0 },
    ],
  });
  exposition.add({ name: 'vigil_test_level', help: 'Level', kind: 'gauge', read: () => 1.5 });
  exposition.add({ name: 'vigil_test_none', help: 'Nothing', kind: 'gauge', read: () => [] });
  exposition.addHistogram({
    name: 'vigil_test_seconds',
    help: 'Seconds',
    read: () => histogram.read(),
  });
  total = 5;
  const families = parsePrometheusTextFormat(await exposition.text());
  const byName = new Map(families.map((f) => [f.name, f]));
  t.same(byName.get('vigil_test_things_total'), {
    name: 'vigil_test_things_total',
    help: 'Things',
    type: 'COUNTER',
    metrics: [
      { labels: { kind: 'a "quoted"\nkind' }, value: '5' },
      { labels: { kind: 'b' }, value: '0' },
    ],
  });
  t.same(byName.get('vigil_test_level')?.metrics, [{ value: '1.5' }]);
  t.equal(byName.get('vigil_test_none')?.type, 'GAUGE');
  t.same(byName.get('vigil_test_seconds'), {
    name: 'vigil_test_seconds',
    help: 'Seconds',
    type: 'HISTOGRAM',
    metrics: [{ buckets: { '0.1': '1', '1': '2', '+Inf': '2' }, sum: '0.55', count: '2' }],
  });
});

void t.test('names must start with vigil_ and be new', (t) => {
  const exposition = createExposition();
  const source = { name: 'vigil_x', help: 'x', kind: 'gauge' as const, read: () => 0 };
  exposition.add(source);
  t.throws(() => exposition.add(source), /registered already/);
  t.throws(() => exposition.add({ ...source, name: 'other_x' }), /start with vigil_/);
  t.throws(() => exposition.addHistogram({ name: 'vigil_x', help: 'x', read: () => null }));
  t.end();
});
