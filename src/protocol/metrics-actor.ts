/**
 * @module Messages to and from the metrics actor thread. Plain data only (epoch ms, no Date,
 * no class instances): everything here crosses a thread boundary by structured clone.
 */
import type { MetricEvent } from '../domain/event.ts';

/** Storage workers -> metrics actor, on the BroadcastChannel named in their workerData. */
export type MetricsChannelMessage = {
  readonly type: 'events-stored';
  readonly events: readonly MetricEvent[];
};
