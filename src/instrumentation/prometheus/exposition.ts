/**
 * @module The Prometheus text exposition of GET /metrics, with prom-client (front thread): each
 * source becomes a prom-client metric whose collect() reads the source when scraped, so nothing
 * is kept twice and nothing is counted here. Histograms kept as plain numbers (PlainHistogram)
 * are exported as they are: prom-client's own Histogram can only count observations itself.
 */
import { Counter, Gauge, Histogram, Registry, type LabelValues } from 'prom-client';
import type { HistogramCounts } from '../../telemetry/plain-histogram.ts';
import {
  METRIC_PREFIX,
  type HistogramSource,
  type MetricSource,
  type Sample,
} from './metric-source.ts';

export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

export interface Exposition {
  add(source: MetricSource): void;
  addHistogram(source: HistogramSource): void;
  /** The exposition text; every source is read once, in the same turn of the event loop. */
  text(): Promise<string>;
}

const samplesOf = (read: number | readonly Sample[]): readonly Sample[] =>
  typeof read === 'number' ? [{ value: read }] : read;

/** A histogram whose buckets its owner counted: exported from `read`, never observed here. */
class CountedHistogram extends Histogram<string> {
  constructor(
    private readonly source: HistogramSource,
    registry: Registry,
  ) {
    super({ name: source.name, help: source.help, registers: [registry] });
  }

  // prom-client's registry asks getForPromString() where there is one, else get().
  getForPromString(): ReturnType<Histogram<string>['get']> {
    return this.get();
  }

  override get(): ReturnType<Histogram<string>['get']> {
    const counts = this.source.read();
    return Promise.resolve({
      name: this.source.name,
      help: this.source.help,
      // The registry writes `type` as it is: prom-client's typings call it an enum, it is text.
      type: 'histogram' as unknown as Awaited<ReturnType<Histogram<string>['get']>>['type'],
      aggregator: 'sum',
      values: counts === null ? [] : histogramValues(this.source.name, counts),
      collect: () => undefined,
    });
  }
}

function histogramValues(
  name: string,
  counts: HistogramCounts,
): { labels: LabelValues<string>; value: number; metricName: string }[] {
  const bucket = `${name}_bucket`;
  return [
    ...counts.bounds.map((bound, i) => ({
      labels: { le: bound },
      value: counts.cumulative[i] ?? 0,
      metricName: bucket,
    })),
    { labels: { le: '+Inf' }, value: counts.count, metricName: bucket },
    { labels: {}, value: counts.sum, metricName: `${name}_sum` },
    { labels: {}, value: counts.count, metricName: `${name}_count` },
  ];
}

function checkedName(name: string, taken: Registry): void {
  if (!name.startsWith(METRIC_PREFIX))
    throw new TypeError(`metric ${name}: Vigil's metric names start with ${METRIC_PREFIX}`);
  if (taken.getSingleMetric(name) !== undefined)
    throw new TypeError(`metric ${name} is registered already`);
}

export function createExposition(): Exposition {
  const registry = new Registry();
  return {
    add(source) {
      checkedName(source.name, registry);
      const config = {
        name: source.name,
        help: source.help,
        labelNames: [...(source.labelNames ?? [])],
        registers: [registry],
      };
      if (source.kind === 'counter') {
        // The owner's total, set afresh on each scrape: reset, then one increment by it.
        new Counter({
          ...config,
          collect(this: Counter<string>) {
            this.reset();
            for (const { labels, value } of samplesOf(source.read())) this.inc(labels ?? {}, value);
          },
        });
      } else {
        new Gauge({
          ...config,
          collect(this: Gauge<string>) {
            this.reset();
            for (const { labels, value } of samplesOf(source.read())) this.set(labels ?? {}, value);
          },
        });
      }
    },
    addHistogram(source) {
      checkedName(source.name, registry);
      new CountedHistogram(source, registry);
    },
    text: () => registry.metrics(),
  };
}
