/**
 * @module What a backtest answers (POST /api/v1/rules/backtest, docs/backtest.md) and its bounds,
 * declared once: the worker thread builds it, the front thread passes it on as it is.
 */
import type { Explanation } from '../alerts/alert.ts';
import type { AnomalyDirection } from '../kinds/anomaly/anomaly-config.ts';
import type { OperatorName } from '../rule-types.ts';

/** Longest range replayed: the storage read and the ticks are bounded by it. */
export const MAX_BACKTEST_MS = 7 * 86_400_000;
/** Transitions answered at most; past them the answer is truncated (a flapping rule). */
export const MAX_BACKTEST_TRANSITIONS = 1000;
/** Points of the chart at most: a step of whole minutes, as many as fit. */
export const MAX_CHART_POINTS = 2000;

/** A transition the evaluator would have decided. Times are ISO 8601 instants. */
export interface BacktestTransition {
  readonly transition: 'FIRING' | 'RESOLVED';
  readonly at: string;
  /** The values the condition read then (each metric as written in ruleConfig). */
  readonly values: Readonly<Record<string, number>> | null;
  /** FIRING: what made the rule true; RESOLVED: empty. */
  readonly matchedConditions: readonly string[];
  readonly explanation: Explanation | null;
  readonly explanationText: string | null;
  /** FIRING: maxAlertsPerHour was spent (recorded, notified only in the next DIGEST). */
  readonly heldByBudget: boolean;
  /** The stored silence that covered the incident when it fired (the oldest), or null. */
  readonly silenceId: number | null;
}

/** Why a notification would not have gone out: null when it would have. */
export type NotSentReason = 'silenced' | 'held-by-budget' | 'no-channels' | null;

export interface BacktestNotification {
  readonly transition: 'FIRING' | 'RESOLVED' | 'DIGEST';
  readonly at: string;
  readonly sent: boolean;
  readonly notSentReason: NotSentReason;
  readonly channels: readonly string[];
  readonly silenceId: number | null;
  /** DIGEST: the incidents held back that it tells of. */
  readonly heldBack?: number;
}

export interface BacktestCounts {
  /** Stored events replayed (the warm-up before `from` included). */
  readonly events: number;
  /** Evaluation ticks, one per RULE_EVALUATION_MS as the live evaluator runs. */
  readonly ticks: number;
  readonly firing: number;
  readonly resolved: number;
  readonly notificationsSent: number;
  readonly silenced: number;
  readonly heldByBudget: number;
  readonly digests: number;
}

/** A metric the condition compares (THRESHOLD, RATE_CHANGE), and the fixed threshold it is compared with. */
export interface ThresholdChartSeries {
  readonly kind: 'threshold';
  readonly label: string;
  readonly operator: OperatorName;
  readonly threshold: number;
  readonly recoveryThreshold: number | null;
  /** By point; null where the value is undefined (a RATE_CHANGE without a baseline). */
  readonly values: readonly (number | null)[];
}

/**
 * An ANOMALY rule's observed value (its last completed bucket) and the band it is judged against,
 * by point. The band is null where the series is LEARNING (it judges nothing then) or its
 * baseline has no estimate yet; the observed value is null before the first completed bucket.
 */
export interface BandChartSeries {
  readonly kind: 'band';
  readonly label: string;
  readonly direction: AnomalyDirection;
  readonly values: readonly (number | null)[];
  readonly expected: readonly (number | null)[];
  readonly lower: readonly (number | null)[];
  readonly upper: readonly (number | null)[];
}

/** One line of the chart (PATTERN rules have none: a match has no value to draw). */
export type ChartSeries = ThresholdChartSeries | BandChartSeries;

export interface BacktestChart {
  readonly stepMs: number;
  /** Epoch ms of each point. */
  readonly times: readonly number[];
  readonly series: readonly ChartSeries[];
}

export interface BacktestResult {
  readonly from: string;
  readonly to: string;
  /** The last tick evaluated (`to` minus a tick, unless truncated). */
  readonly evaluatedUntil: string | null;
  readonly evaluationMs: number;
  readonly truncated: boolean;
  readonly truncatedReason: string | null;
  /** An incident fired and not resolved by the end. */
  readonly firingAtEnd: boolean;
  readonly transitions: readonly BacktestTransition[];
  readonly notifications: readonly BacktestNotification[];
  readonly counts: BacktestCounts;
  readonly chart: BacktestChart;
}
