/**
 * @module The event as the domain sees it: severities and the compact record that the storage
 * workers hand to the metrics actor after COMMIT. Plain data only (it crosses threads).
 */
export const SEVERITIES = ['INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const isErrorSeverity = (severity: Severity): boolean =>
  severity === 'ERROR' || severity === 'CRITICAL';

/** What the metrics actor needs of one stored event. */
export interface MetricEvent {
  readonly eventType: string;
  readonly source: string;
  readonly userId: string | null;
  readonly severity: Severity;
  /** Epoch ms at which the front thread read the request: metrics bucket by this. */
  readonly receivedAt: number;
  /** Whole ms from receivedAt to the row's write (DESIGN 2), >= 0. */
  readonly latencyMs: number;
}
