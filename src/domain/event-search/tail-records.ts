/**
 * @module The live tail's events (issue 34): the events of a committed batch as the API's Event
 * shape, built on the front thread from what ingest sent and the ids it got back, so that the tail
 * costs ingest no read. Repeats of an idempotency key and refused items are not new events: left
 * out.
 */
import { eventIdOf } from '../event-id.ts';
import { isErrorSeverity, type EventRecord, type NewEvent } from '../event.ts';
import type { InsertOutcome } from '../idempotency.ts';

/** Where committed events go; the STOMP endpoint (src/stomp/endpoint.ts) is one. */
export interface EventTail {
  /** False while nobody tails: ingest then builds nothing. */
  tailing(): boolean;
  publishEvents(events: readonly EventRecord[]): void;
}

/**
 * `events[i]` stored as `outcomes[i]`. processingLatencyMs is measured at `now` (just after the
 * COMMIT was acknowledged), so it may exceed the stored value by that acknowledgement's time.
 */
export function tailRecords(
  events: readonly NewEvent[],
  outcomes: readonly InsertOutcome[],
  now: number,
): EventRecord[] {
  const records: EventRecord[] = [];
  for (let i = 0; i < events.length; i++) {
    const id = outcomes[i];
    const e = events[i];
    if (typeof id !== 'number' || e === undefined) continue;
    records.push({
      id,
      eventId: eventIdOf(id),
      eventType: e.eventType,
      timestamp: new Date(e.timestamp).toISOString(),
      source: e.source,
      userId: e.userId,
      sessionId: e.sessionId,
      severity: e.severity,
      tags: e.tags,
      metadata: e.metadata,
      receivedAt: new Date(e.receivedAt).toISOString(),
      processingLatencyMs: Math.max(0, now - e.receivedAt),
      error: isErrorSeverity(e.severity),
    });
  }
  return records;
}
