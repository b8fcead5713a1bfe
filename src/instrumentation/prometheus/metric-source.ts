/**
 * @module What GET /metrics exports, as the parts of the service describe it: a name, a help text
 * and a function that reads the owning thread's plain numbers on each scrape. Nothing here knows
 * prom-client; exposition.ts turns sources into it. Other parts (the cluster's lease and NATS
 * code) add theirs through SelfMetricsRegistry.register, on the front thread.
 */
import type { HistogramCounts } from '../../telemetry/plain-histogram.ts';

/** Every name Vigil exports starts so (docs/prometheus.md). */
export const METRIC_PREFIX = 'vigil_';

export interface Sample {
  /** One value per label the source declares; absent for a source without labels. */
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface MetricSource {
  /** `vigil_...`; a counter's ends in `_total`. */
  readonly name: string;
  readonly help: string;
  /** A counter's values never go down, except when what counts them starts again (a restart). */
  readonly kind: 'gauge' | 'counter';
  readonly labelNames?: readonly string[];
  /**
   * The values now, called on each scrape on the front thread: read plain numbers kept by their
   * owner, never count anything here. A number: the source has no labels. No samples: nothing to
   * export now (a source with labels then shows no series).
   */
  readonly read: () => number | readonly Sample[];
}

export interface HistogramSource {
  readonly name: string;
  readonly help: string;
  /** The histogram now; null: nothing to export (its owner did not answer). */
  readonly read: () => HistogramCounts | null;
}

/** How other parts of the service add what they own to GET /metrics. */
export interface SelfMetricsRegistry {
  /**
   * Adds a gauge or counter; from the next scrape on it is exported. Register only what exists:
   * a cluster metric is registered by the cluster code when it runs, never as a placeholder.
   * Throws when the name is not `vigil_...` or is taken.
   */
  register(source: MetricSource): void;
}

/** A gauge without labels, read from its owner's number. */
export const gauge = (name: string, help: string, read: () => number): MetricSource => ({
  name,
  help,
  kind: 'gauge',
  read,
});

/** A counter without labels, read from its owner's total. */
export const counter = (name: string, help: string, read: () => number): MetricSource => ({
  name,
  help,
  kind: 'counter',
  read,
});
