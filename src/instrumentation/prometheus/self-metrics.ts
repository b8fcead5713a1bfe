/**
 * @module Vigil's own metrics for GET /metrics (front thread): every built-in family (the list is
 * docs/prometheus.md, checked by a test), plus what other parts register later. A scrape asks the
 * metrics actor once, then reads every source in one turn of the event loop.
 */
import { addActorMetrics, type ActorMetricsDeps } from './actor-metrics.ts';
import { createExposition, PROMETHEUS_CONTENT_TYPE } from './exposition.ts';
import { addIngestMetrics, type IngestMetricsDeps } from './ingest-metrics.ts';
import type { SelfMetricsRegistry } from './metric-source.ts';
import { addRuntimeMetrics, type RuntimeMetricsDeps } from './runtime-metrics.ts';

export type SelfMetricsDeps = IngestMetricsDeps & ActorMetricsDeps & RuntimeMetricsDeps;

export interface SelfMetrics extends SelfMetricsRegistry {
  readonly contentType: string;
  /** The exposition text now. */
  text(): Promise<string>;
}

export function createSelfMetrics(deps: SelfMetricsDeps): SelfMetrics {
  const exposition = createExposition();
  addIngestMetrics(exposition, deps);
  const askActor = addActorMetrics(exposition, deps);
  addRuntimeMetrics(exposition, deps);
  return {
    contentType: PROMETHEUS_CONTENT_TYPE,
    register: (source) => exposition.add(source),
    async text() {
      await askActor();
      return exposition.text();
    },
  };
}
