/**
 * @module Alert throttling of one rule (DESIGN 6): a rule may fire when its last alert is older
 * than suppressionWindowMinutes and it fired fewer than maxAlertsPerHour times in the last hour.
 */
import type { RuleFields } from './rule.ts';

const HOUR_MS = 3_600_000;

export type ThrottleLimits = Pick<RuleFields, 'suppressionWindowMinutes' | 'maxAlertsPerHour'>;

export class Throttle {
  /** Epoch ms of this rule's alerts within the last hour, oldest first (for maxAlertsPerHour). */
  private readonly recent: number[];
  /** Its latest alert, kept past the hour: a suppression window may be longer than that. */
  private last: number | undefined;

  /** `alerts`: stored alert times (the last hour's and the latest one), in any order. */
  constructor(alerts: readonly number[] = []) {
    this.recent = [...alerts].sort((a, b) => a - b);
    this.last = this.recent.at(-1);
  }

  private forget(now: number): void {
    while (this.recent.length > 0 && (this.recent[0] as number) <= now - HOUR_MS)
      this.recent.shift();
  }

  /** Null when the rule may fire now, else why it is held back. */
  heldBack(limits: ThrottleLimits, now: number): string | null {
    this.forget(now);
    const last = this.last;
    const suppressionMs = limits.suppressionWindowMinutes * 60_000;
    if (last !== undefined && suppressionMs > 0 && now - last < suppressionMs) {
      return `suppressed until ${new Date(last + suppressionMs).toISOString()} (suppressionWindowMinutes ${limits.suppressionWindowMinutes})`;
    }
    if (this.recent.length >= limits.maxAlertsPerHour) {
      return `maxAlertsPerHour ${limits.maxAlertsPerHour} reached in the last 60 minutes`;
    }
    return null;
  }

  fired(now: number): void {
    this.recent.push(now);
    if (this.last === undefined || now > this.last) this.last = now;
  }

  /** Alert times still inside the last hour (for a rule whose definition is reloaded). */
  alertTimes(now: number): readonly number[] {
    this.forget(now);
    return this.recent;
  }
}
