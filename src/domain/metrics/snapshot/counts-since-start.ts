/**
 * @module Event counts since start or the last reset, by type, source and severity: the 24 h's
 * running totals plus what the minutes that left it had counted. Unlike the snapshot's 24 h
 * counts these never go down (until a reset), so they can be exported as Prometheus counters.
 */
import { SEVERITIES, type Severity } from '../../event.ts';
import type { KeyRegistry } from '../state/key-registry.ts';
import type { MetricsState } from '../state/metrics-state.ts';

/** Plain data: it crosses from the metrics actor to the front thread. */
export interface CountsSinceStart {
  /** Epoch ms of the start or reset they count from. */
  readonly since: number;
  readonly events: number;
  readonly byType: Readonly<Record<string, number>>;
  readonly bySource: Readonly<Record<string, number>>;
  readonly bySeverity: Readonly<Record<Severity, number>>;
}

export function countsSinceStart(state: MetricsState): CountsSinceStart {
  const { totals, expired } = state;
  const bySeverity = {} as Record<Severity, number>;
  SEVERITIES.forEach((severity, i) => {
    bySeverity[severity] = totals.severities[i]! + expired.severities[i]!;
  });
  return {
    since: state.since,
    events: totals.events + expired.events,
    byType: byName(expired.byType, state.types, totals.byType),
    bySource: byName(expired.bySource, state.sources, totals.bySource),
    bySeverity,
  };
}

function byName(
  expired: ReadonlyMap<string, number>,
  registry: KeyRegistry,
  live: Float64Array,
): Record<string, number> {
  const counts = Object.create(null) as Record<string, number>;
  for (const [name, count] of expired) counts[name] = count;
  for (let id = 0; id < live.length; id++) {
    const count = live[id]!;
    const name = count > 0 ? registry.nameOf(id) : undefined;
    if (name !== undefined) counts[name] = (counts[name] ?? 0) + count;
  }
  return counts;
}
