/**
 * @module Alert throttling of one rule (DESIGN 6, issue 18 section 3). suppressionWindowMinutes
 * holds a new incident back while the rule's last incident is younger than the window (the rule
 * stays PENDING). maxAlertsPerHour is a notification budget: an incident past it still fires and
 * is recorded, but is held back from the channels; once the budget frees up again (the oldest
 * notified incident of the last 60 minutes leaves the hour), the held ones are due in one DIGEST.
 * Nothing is dropped silently.
 */
import type { ActiveRule, RuleFields } from '../rule.ts';

const HOUR_MS = 3_600_000;

export type ThrottleLimits = Pick<RuleFields, 'suppressionWindowMinutes' | 'maxAlertsPerHour'>;

/** What throttling remembers across a restart, rebuilt from the stored alerts (ActiveRule). */
export type ThrottleHistory = Pick<ActiveRule, 'recentAlerts' | 'lastAlertAt' | 'heldSince'>;

/** What became of an incident that fired. */
export type BudgetDecision = 'notify' | 'hold';

export class Throttle {
  /** Epoch ms of the notified incidents within the last hour, oldest first (the budget). */
  private readonly recent: number[];
  /** The latest incident, kept past the hour: a suppression window may be longer than that. */
  private last: number | undefined;
  /** The oldest held-back incident not yet in a digest; undefined when none is held. */
  private heldSince: number | undefined;

  constructor(history: Partial<ThrottleHistory> = {}) {
    this.recent = [...(history.recentAlerts ?? [])].sort((a, b) => a - b);
    this.last = history.lastAlertAt ?? this.recent.at(-1);
    this.heldSince = history.heldSince ?? undefined;
  }

  private forget(now: number): void {
    while (this.recent.length > 0 && (this.recent[0] as number) <= now - HOUR_MS)
      this.recent.shift();
  }

  /** Null when a new incident may fire now, else why suppression holds it back. */
  suppressed(limits: ThrottleLimits, now: number): string | null {
    const until = this.suppressedUntil(limits, now);
    if (until === null) return null;
    return `suppressed until ${new Date(until).toISOString()} (suppressionWindowMinutes ${limits.suppressionWindowMinutes})`;
  }

  /** Epoch ms at which the suppression window of the last incident ends, or null (none now). */
  suppressedUntil(limits: ThrottleLimits, now: number): number | null {
    const last = this.last;
    const suppressionMs = limits.suppressionWindowMinutes * 60_000;
    if (last === undefined || suppressionMs <= 0 || now - last >= suppressionMs) return null;
    return last + suppressionMs;
  }

  /** Null while the budget has room, else what happens to the next incident. */
  budgetSpent(limits: ThrottleLimits, now: number): string | null {
    this.forget(now);
    if (this.recent.length < limits.maxAlertsPerHour) return null;
    return `maxAlertsPerHour ${limits.maxAlertsPerHour} reached in the last 60 minutes: a new incident is recorded and held for the digest`;
  }

  /** Why a new incident would be held back or go unnotified now (the rule test's note), or null. */
  note(limits: ThrottleLimits, now: number): string | null {
    return this.suppressed(limits, now) ?? this.budgetSpent(limits, now);
  }

  /** Records an incident that fired at `now`; says whether the budget lets it be notified. */
  fired(limits: ThrottleLimits, now: number): BudgetDecision {
    const held = this.budgetSpent(limits, now) !== null;
    if (this.last === undefined || now > this.last) this.last = now;
    if (held) {
      this.heldSince ??= now;
      return 'hold';
    }
    this.recent.push(now);
    return 'notify';
  }

  /**
   * When incidents are held and the budget has room again: the time of the oldest held one (the
   * digest covers those from then until now), and it forgets them. Otherwise null.
   */
  digestDue(limits: ThrottleLimits, now: number): number | null {
    if (this.heldSince === undefined || this.budgetSpent(limits, now) !== null) return null;
    const since = this.heldSince;
    this.heldSince = undefined;
    return since;
  }
}
