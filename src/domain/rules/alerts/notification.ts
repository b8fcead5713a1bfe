/**
 * @module What a notification channel is told (issue 18 section 3): an incident's FIRING or
 * RESOLVED, or the DIGEST of the incidents a rule's budget held back. Each carries a transitionId
 * made from stored ids only, so it is the same on every retry and after a restart: a receiver
 * that keeps transitionIds never shows a duplicate (the webhook also sends it as
 * `Idempotency-Key`). Pure.
 */
import type {
  AlertPayload,
  AlertRecord,
  DigestEntry,
  DigestRecord,
  IncidentTransition,
} from './alert.ts';

/** The incident's own record, what happened to it, and the ids that name the notification. */
export type IncidentNotification = AlertPayload & {
  readonly alertId: number;
  readonly transition: IncidentTransition;
  readonly transitionId: string;
  /** RESOLVED: how long the incident lasted, in whole seconds; null for FIRING. */
  readonly durationSeconds: number | null;
};

/** The incidents one rule's budget held back: how many, and the first of them. */
export type DigestNotification = Omit<DigestRecord, 'id'> & {
  /** A digest is about several incidents: `alerts` lists them. */
  readonly alertId: null;
  readonly digestId: number;
  readonly transition: 'DIGEST';
  readonly transitionId: string;
  readonly message: string;
};

export type Notification = IncidentNotification | DigestNotification;

export const incidentTransitionId = (alertId: number, transition: IncidentTransition): string =>
  `alert-${alertId}-${transition.toLowerCase()}`;

export const digestTransitionId = (digestId: number): string => `digest-${digestId}`;

/** Whole seconds from `from` to `to` (ISO instants). */
const secondsBetween = (from: string, to: string): number =>
  Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));

/** `4m 12s`, `2h 5m`, `45s`: a duration as people read it. */
export function durationText(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return m > 0 ? `${h}h ${m}m` : `${h}h`;
  if (m > 0) return s > 0 ? `${m}m ${s}s` : `${m}m`;
  return `${s}s`;
}

const valuesText = (values: Readonly<Record<string, number>>): string =>
  Object.entries(values)
    .map(([metric, value]) => `${metric} = ${value}`)
    .join(', ');

/**
 * The notification of an incident's transition. A RESOLVED one's message says how long it lasted
 * and the values at recovery (not the last firing ones).
 */
export function incidentNotification(
  alert: AlertRecord,
  transition: IncidentTransition,
): IncidentNotification {
  // What a channel is told leaves out the stored-only fields.
  const { condition, deliveries, resolveDeliveries, ...payload } = alert;
  const base = {
    ...payload,
    alertId: alert.id,
    transition,
    transitionId: incidentTransitionId(alert.id, transition),
  };
  if (transition === 'FIRING') return { ...base, durationSeconds: null };
  const durationSeconds = secondsBetween(alert.firedAt, alert.resolvedAt ?? alert.firedAt);
  const recovered =
    alert.valuesAtResolve === null ? '' : `; at recovery ${valuesText(alert.valuesAtResolve)}`;
  return {
    ...base,
    durationSeconds,
    message: `Rule '${alert.ruleName}' (${alert.severity}) resolved after ${durationText(durationSeconds)} (${alert.resolvedReason ?? 'resolved'})${recovered}`,
  };
}

export function digestNotification(digest: DigestRecord): DigestNotification {
  const { id, ...rest } = digest;
  const listed =
    digest.alerts.length < digest.heldBack ? ` (the first ${digest.alerts.length} listed)` : '';
  return {
    ...rest,
    alertId: null,
    digestId: id,
    transition: 'DIGEST',
    transitionId: digestTransitionId(id),
    message: `Rule '${digest.ruleName}' (${digest.severity}): ${digest.heldBack} incident${digest.heldBack === 1 ? '' : 's'} held back by maxAlertsPerHour ${digest.maxAlertsPerHour} from ${digest.from} to ${digest.until}${listed}`,
  };
}

/** One listed incident of a digest in words: `#42 fired 2026-...Z (RESOLVED): errorRate ...`. */
export const digestEntryText = (entry: DigestEntry): string =>
  `#${entry.alertId} fired ${entry.firedAt} (${entry.state})${entry.explanationText === '' ? '' : `: ${entry.explanationText}`}`;
