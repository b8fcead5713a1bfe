/**
 * @module GET /metrics: the ingest path (front thread). Read from what the route adapter and the
 * group commit already keep (src/http/ingest-answers.ts, IngestBatcher.stats): a scrape adds no
 * work to an ingest request.
 */
import type { IngestBatcher, IngestBatcherStats } from '../../actors/ingest-batcher.ts';
import type { IngestAnswers, IngestCounts } from '../../http/ingest-answers.ts';
import type { Exposition } from './exposition.ts';
import { counter, gauge, type MetricSource, type Sample } from './metric-source.ts';

export interface IngestMetricsDeps {
  readonly ingestCounts: IngestCounts;
  readonly batcher: Pick<IngestBatcher, 'stats'>;
  /** INGEST_QUEUE_MAX and INGEST_QUEUE_MAX_BYTES. */
  readonly queueLimits: { readonly events: number; readonly bytes: number };
}

const byOutcome = (path: string, answers: IngestAnswers): Sample[] =>
  answers.outcomes().map(({ outcome, count }) => ({ labels: { path, outcome }, value: count }));

export function addIngestMetrics(exposition: Exposition, deps: IngestMetricsDeps): void {
  const { single, batch } = deps.ingestCounts;
  exposition.add({
    name: 'vigil_ingest_requests_total',
    help: 'Requests to the ingest routes by how they were answered: accepted (202) or the error code',
    kind: 'counter',
    labelNames: ['path', 'outcome'],
    read: () => [
      ...byOutcome('/api/v1/events', single),
      ...byOutcome('/api/v1/events/batch', batch),
    ],
  });
  exposition.add({
    name: 'vigil_ingest_events_total',
    help:
      'Events acknowledged (accepted) or refused (rejected): single events by their answer, ' +
      "batch items by the 202 answer's counts",
    kind: 'counter',
    labelNames: ['outcome'],
    read: () => [
      { labels: { outcome: 'accepted' }, value: single.accepted + batch.acceptedItems },
      { labels: { outcome: 'rejected' }, value: single.refusedTotal() + batch.rejectedItems },
    ],
  });
  const stats = (): IngestBatcherStats => deps.batcher.stats();
  const gauges: MetricSource[] = [
    gauge(
      'vigil_ingest_queue_events',
      'Events accepted but not yet committed (group commit queue and batches being written)',
      () => stats().queuedEvents,
    ),
    gauge(
      'vigil_ingest_queue_bytes',
      'Bytes of the request bodies of the events not yet committed',
      () => stats().queuedBytes,
    ),
    gauge(
      'vigil_ingest_queue_limit_events',
      'INGEST_QUEUE_MAX: past it ingest answers 503 OVERLOADED',
      () => deps.queueLimits.events,
    ),
    gauge(
      'vigil_ingest_queue_limit_bytes',
      'INGEST_QUEUE_MAX_BYTES: past it ingest answers 503 OVERLOADED',
      () => deps.queueLimits.bytes,
    ),
  ];
  for (const source of gauges) exposition.add(source);
  exposition.addHistogram({
    name: 'vigil_ingest_batch_events',
    help: 'Events per committed group-commit batch (one INSERT and COMMIT)',
    read: () => stats().batchEvents.read(),
  });
  exposition.addHistogram({
    name: 'vigil_ingest_commit_seconds',
    help: 'From handing a batch to the storage pool to its COMMIT answered, committed batches',
    read: () => stats().commitSeconds.read(),
  });
  exposition.add(
    counter(
      'vigil_ingest_batch_failures_total',
      'Batches whose write failed (database error or a dead storage thread): their requests got 500',
      () => stats().failedBatches,
    ),
  );
}
