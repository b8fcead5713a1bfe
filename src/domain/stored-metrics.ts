/**
 * @module The metric records of a committed batch: one per event stored now (a repeated or refused
 * idempotency key stored nothing, and was counted when first stored). The storage worker sends
 * them to its metrics actor, and in cluster mode also writes them to the batch's outbox row.
 */
import type { DetailedMetricEvent, MetricEvent, NewEvent } from './event.ts';
import type { InsertOutcome } from './idempotency.ts';

/** `latencyMs` from receipt to `writtenAt`, the moment the worker wrote the batch (DESIGN 2). */
export const metricEventOf = (e: NewEvent, writtenAt: number): MetricEvent => ({
  eventType: e.eventType,
  source: e.source,
  userId: e.userId,
  severity: e.severity,
  receivedAt: e.receivedAt,
  latencyMs: Math.max(0, writtenAt - e.receivedAt),
});

/** With `detail` (an ACTIVE PATTERN rule reads them), each carries its id, session, tags, metadata. */
export function storedMetrics(
  batch: readonly NewEvent[],
  outcomes: readonly InsertOutcome[],
  writtenAt: number,
  detail: boolean,
): MetricEvent[] {
  const stored: MetricEvent[] = [];
  for (let i = 0; i < batch.length; i++) {
    const id = outcomes[i];
    if (typeof id !== 'number') continue;
    const e = batch[i] as NewEvent;
    const metric = metricEventOf(e, writtenAt);
    if (!detail) {
      stored.push(metric);
      continue;
    }
    const full: DetailedMetricEvent = {
      ...metric,
      id,
      sessionId: e.sessionId,
      tags: e.tags,
      metadata: e.metadata,
    };
    stored.push(full);
  }
  return stored;
}
