/**
 * @module What the channels would have received, decided as the alert sink decides it (alert-sink
 * `notifiable`, alerts-repository's silence lookup): an incident is notified on FIRING and on
 * RESOLVED unless the stored silence that covered it when it fired (the oldest such), or the
 * budget, held it back, and a DIGEST tells of the incidents the budget held. Pure.
 */
import type { SilenceRecord } from '../../silences/silence.ts';
import type { AlertResolution, DigestDue, FiredAlert } from '../alerts/alert.ts';
import type { ActiveRule } from '../rule.ts';
import type {
  BacktestCounts,
  BacktestNotification,
  BacktestTransition,
  NotSentReason,
} from './backtest-result.ts';
import { explanationText } from '../explanation.ts';

interface Window {
  readonly id: number;
  readonly startsAt: number;
  readonly endsAt: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export class NotificationLedger {
  readonly transitions: BacktestTransition[] = [];
  readonly notifications: BacktestNotification[] = [];
  private readonly silences: Window[];
  /** The open incident's reason not to notify (its RESOLVED shares it). */
  private open: { readonly reason: NotSentReason; readonly silenceId: number | null } | null = null;
  /** Times of the incidents held by the budget and not yet in a digest. */
  private held: number[] = [];
  private counts = { firing: 0, resolved: 0, notificationsSent: 0, silenced: 0 };
  private heldCount = 0;
  private digestCount = 0;

  /** `silences`: the stored ones overlapping the range, any order. */
  constructor(
    private readonly rule: ActiveRule,
    silences: readonly SilenceRecord[],
  ) {
    this.silences = silences
      .filter(
        (s) =>
          (s.ruleId === null || s.ruleId === rule.id) &&
          (s.severity === null || s.severity === rule.severity),
      )
      .map((s) => ({ id: s.id, startsAt: Date.parse(s.startsAt), endsAt: Date.parse(s.endsAt) }))
      .sort((a, b) => a.id - b.id);
  }

  get firing(): boolean {
    return this.open !== null;
  }

  private silenceAt(at: number): number | null {
    return this.silences.find((s) => s.startsAt <= at && at < s.endsAt)?.id ?? null;
  }

  private notify(
    transition: BacktestNotification['transition'],
    at: number,
    reason: NotSentReason,
    silenceId: number | null,
    heldBack?: number,
  ): void {
    const channels = this.rule.notificationChannels;
    const why = reason ?? (channels.length === 0 ? 'no-channels' : null);
    if (why === null) this.counts.notificationsSent++;
    this.notifications.push({
      transition,
      at: iso(at),
      sent: why === null,
      notSentReason: why,
      channels,
      silenceId,
      ...(heldBack === undefined ? {} : { heldBack }),
    });
  }

  fired(alert: FiredAlert): void {
    const at = alert.triggeredAt;
    const silenceId = this.silenceAt(at);
    const reason: NotSentReason =
      silenceId !== null ? 'silenced' : alert.heldByBudget ? 'held-by-budget' : null;
    this.counts.firing++;
    if (silenceId !== null) this.counts.silenced++;
    if (alert.heldByBudget) {
      this.heldCount++;
      this.held.push(at);
    }
    this.open = { reason, silenceId };
    this.transitions.push({
      transition: 'FIRING',
      at: iso(at),
      values: alert.currentValues,
      matchedConditions: alert.matchedConditions,
      explanation: alert.explanation,
      explanationText: alert.explanationText,
      heldByBudget: alert.heldByBudget,
      silenceId,
    });
    this.notify('FIRING', at, reason, silenceId);
  }

  resolved(resolution: AlertResolution): void {
    const at = resolution.resolvedAt;
    const open = this.open ?? { reason: null, silenceId: null };
    this.open = null;
    this.counts.resolved++;
    this.transitions.push({
      transition: 'RESOLVED',
      at: iso(at),
      values: resolution.valuesAtResolve,
      matchedConditions: [],
      explanation: resolution.resolveExplanation,
      explanationText:
        resolution.resolveExplanation === null
          ? null
          : explanationText(resolution.resolveExplanation),
      heldByBudget: false,
      silenceId: open.silenceId,
    });
    this.notify('RESOLVED', at, open.reason, open.silenceId);
  }

  digest(digest: DigestDue): void {
    const heldBack = this.held.filter((t) => t >= digest.since && t < digest.until).length;
    this.held = this.held.filter((t) => t >= digest.until);
    this.digestCount++;
    this.notify('DIGEST', digest.until, null, null, heldBack);
  }

  totals(events: number, ticks: number): BacktestCounts {
    return {
      events,
      ticks,
      ...this.counts,
      heldByBudget: this.heldCount,
      digests: this.digestCount,
    };
  }
}
