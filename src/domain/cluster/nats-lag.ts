/**
 * @module The NatsLag the cluster thread reports (pure, the clock is passed in): its publishing
 * backlog, and where its consumer of the batch stream is. docs/prometheus.md says what each means.
 */
import type { PublishBacklog } from './publish-backlog.ts';

/**
 * How far this instance is behind JetStream, as GET /metrics exports it (docs/prometheus.md says
 * what each means). Sent once a second when it changed.
 */
export interface NatsLag {
  /** Since the oldest own batch not yet acknowledged by JetStream was committed; 0 when none. */
  readonly publishLagSeconds: number;
  /** Own batches committed and not yet acknowledged by JetStream (in flight, in the outbox). */
  readonly publishPendingBatches: number;
  /** Age of the last batch read from the stream while more were pending after it; else 0. */
  readonly consumeLagSeconds: number;
  /** Messages of the stream not yet read, as JetStream said with the last one read. */
  readonly consumePendingMessages: number;
}

/** Where the consumer is, as of the last message it read (JetStream's numbers, msg.info). */
export interface ConsumerPosition {
  /** Messages of the stream after it, not yet delivered to this consumer. */
  readonly pending: number;
  /** When the stream stored it (the broker's clock, ms since the epoch); 0 before the first. */
  readonly storedAtMs: number;
}

const seconds = (ms: number): number => Math.max(0, Math.round(ms)) / 1_000;

export function natsLagOf(
  backlog: PublishBacklog,
  consumer: ConsumerPosition,
  now: number,
): NatsLag {
  // Behind only while messages wait after the last one read; its age then bounds the oldest
  // unread one's from above, and keeps growing if the consumer is stuck.
  const behind = consumer.pending > 0 && consumer.storedAtMs > 0;
  return {
    publishLagSeconds: seconds(backlog.oldestAgeMs(now)),
    publishPendingBatches: backlog.pending,
    consumeLagSeconds: behind ? seconds(now - consumer.storedAtMs) : 0,
    consumePendingMessages: consumer.pending,
  };
}

export const sameNatsLag = (a: NatsLag, b: NatsLag): boolean =>
  a.publishLagSeconds === b.publishLagSeconds &&
  a.publishPendingBatches === b.publishPendingBatches &&
  a.consumeLagSeconds === b.consumeLagSeconds &&
  a.consumePendingMessages === b.consumePendingMessages;
