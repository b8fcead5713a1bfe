/**
 * @module Alert throttling of one rule (DESIGN 6): a rule may fire when its last alert is older
 * than suppressionWindowMinutes and it fired fewer than maxAlertsPerHour times in the last hour.
 */
const HOUR_MS = 3_600_000;

export interface ThrottleLimits {
  readonly suppressionWindowMinutes: number;
  readonly maxAlertsPerHour: number;
}

export class Throttle {
  /** Epoch ms of this rule's alerts within the last hour, oldest first. */
  private readonly recent: number[];

  constructor(recentAlerts: readonly number[] = []) {
    this.recent = [...recentAlerts].sort((a, b) => a - b);
  }

  private forget(now: number): void {
    while (this.recent.length > 0 && (this.recent[0] as number) <= now - HOUR_MS)
      this.recent.shift();
  }

  /** Null when the rule may fire now, else why it is held back. */
  heldBack(limits: ThrottleLimits, now: number): string | null {
    this.forget(now);
    const last = this.recent.at(-1);
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
  }

  /** Alert times still inside the last hour (for a rule whose definition is reloaded). */
  alertTimes(now: number): readonly number[] {
    this.forget(now);
    return this.recent;
  }
}
