/**
 * @module The event record and its variants, declared once: severities, the validated event on its
 * way to the table, the stored event the API returns, and the compact record that the storage
 * workers hand to the metrics actor after COMMIT. Plain data only (they cross threads).
 */
import type { IdempotencyClaim } from './idempotency.ts';

export const SEVERITIES = ['INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const isErrorSeverity = (severity: Severity): boolean =>
  severity === 'ERROR' || severity === 'CRITICAL';

/** A validated event on its way to the table; times are epoch ms. */
export interface NewEvent {
  readonly eventType: string;
  readonly timestamp: number;
  readonly source: string;
  readonly userId: string | null;
  readonly sessionId: string | null;
  readonly severity: Severity;
  readonly tags: Readonly<Record<string, string>>;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Epoch ms at which the front thread read the request: metrics bucket by this. */
  readonly receivedAt: number;
  /** Present only when the producer gave an idempotency key (issue 22). */
  readonly idempotency?: IdempotencyClaim;
}

/** An event as the API returns it (spec 2.1), already shaped by the storage worker. */
export interface EventRecord extends Omit<NewEvent, 'timestamp' | 'receivedAt' | 'idempotency'> {
  readonly id: number;
  readonly eventId: string;
  /** ISO 8601 UTC with zone. */
  readonly timestamp: string;
  readonly receivedAt: string;
  readonly processingLatencyMs: number;
  readonly error: boolean;
}

export interface EventPage {
  readonly rows: readonly EventRecord[];
  readonly total: number;
}

/** What the metrics actor needs of one stored event. */
export interface MetricEvent extends Pick<
  NewEvent,
  'eventType' | 'source' | 'userId' | 'severity' | 'receivedAt'
> {
  /** Whole ms from receivedAt to the row's write (DESIGN 2), >= 0. */
  readonly latencyMs: number;
}

/**
 * A MetricEvent with what PATTERN rules read (issue 20): its table id, session, tags and metadata.
 * Storage workers send these only while the actor has an ACTIVE PATTERN rule (the front passes
 * the flag with each batch): without one, the per-event message stays as small as before.
 */
export interface DetailedMetricEvent
  extends MetricEvent, Pick<NewEvent, 'sessionId' | 'tags' | 'metadata'> {
  readonly id: number;
}

export const isDetailed = (event: MetricEvent): event is DetailedMetricEvent => 'id' in event;
