/**
 * @module When to say that a metrics cap filled (issue 29): one log line per fill, not per event,
 * and at most one per cap per LOG_INTERVAL_MS (fills within the quiet time are told together in
 * the next line). Reads the fill counts the snapshot carries anyway; pure, time comes in.
 */
import { CAP_NAMES, type CapName, type MetricsCapsUsage } from './state/cap-usage.ts';

export const CAP_FILL_LOG_INTERVAL_MS = 60_000;

/** One line to log: `cap` filled `newFills` times since the last line about it. */
export interface CapFillNotice {
  readonly cap: CapName;
  readonly limit: number;
  readonly newFills: number;
  readonly totalFills: number;
}

export class CapFillLog {
  private readonly told: Record<CapName, number> = { eventTypes: 0, sources: 0, users: 0 };
  private readonly toldAt: Record<CapName, number> = {
    eventTypes: Number.NEGATIVE_INFINITY,
    sources: Number.NEGATIVE_INFINITY,
    users: Number.NEGATIVE_INFINITY,
  };

  /** The lines due now (empty nearly always: a comparison of three numbers). */
  check(usage: MetricsCapsUsage, now: number): CapFillNotice[] {
    const notices: CapFillNotice[] = [];
    for (const cap of CAP_NAMES) {
      const { fills, cap: limit } = usage[cap];
      if (fills <= this.told[cap] || now - this.toldAt[cap] < CAP_FILL_LOG_INTERVAL_MS) continue;
      notices.push({ cap, limit, newFills: fills - this.told[cap], totalFills: fills });
      this.told[cap] = fills;
      this.toldAt[cap] = now;
    }
    return notices;
  }
}

/** The log message of a notice: what overflows and what it means for the rules. */
export function capFillMessage(notice: CapFillNotice): string {
  switch (notice.cap) {
    case 'eventTypes':
      return `metrics cap METRICS_MAX_EVENT_TYPES (${notice.limit}) is full: new event types no rule names count under (other) until keys leave the 24 h`;
    case 'sources':
      return `metrics cap METRICS_MAX_SOURCES (${notice.limit}) is full: new sources no rule names count under (other) until keys leave the 24 h`;
    case 'users':
      return `metrics cap METRICS_MAX_TRACKED_USERS (${notice.limit}) is full: least recently seen users are forgotten, uniqueUsers is an estimate`;
  }
}
