/**
 * @module One rule replayed over stored events with the live evaluator's own code: the aggregator
 * (metrics rebuilt from the events) and the RuleEngine (lifecycle, suppression, budget), under a
 * simulated clock. Two steps only, as the metrics actor has them: `feed` (a committed batch, in
 * receipt order) and `tick` (one evaluation at a time). A rule type with more state hooks into
 * these two: what it needs of each event goes in `feed`, what it decides in `tick`.
 */
import type { MetricEvent } from '../../event.ts';
import { Aggregator } from '../../metrics/aggregator.ts';
import type { MetricsLimits } from '../../metrics/metrics-limits.ts';
import type { AlertResolution, DigestDue, FiredAlert } from '../alerts/alert.ts';
import { evaluateRule } from '../rule-evaluation.ts';
import { RuleEngine, readSpanMs } from '../rule-engine.ts';
import { kindOf } from '../kinds/registry.ts';
import type { ActiveRule } from '../rule.ts';
import { ReplayMetrics } from './replay-metrics.ts';
import type { BackfillAnswer, BackfillRequest } from '../kinds/anomaly/anomaly-rules.ts';

/** What one tick decided, in the order the metrics actor posts it. */
export interface TickOutcome {
  readonly resolved: readonly AlertResolution[];
  readonly digests: readonly DigestDue[];
  readonly fired: readonly FiredAlert[];
}

/**
 * How long before `from` the events are fed without evaluating: the rule's windows at `from` then
 * hold what they held live (RATE_CHANGE reads two windows; at most the aggregator's 24 h).
 */
export const warmUpMs = (rule: Pick<ActiveRule, 'ruleType' | 'ruleConfig'>): number =>
  readSpanMs(rule.ruleType, rule.ruleConfig);

const clockBound = (rule: ActiveRule): boolean =>
  kindOf(rule.ruleType).backtest.readsClock(rule.ruleConfig);

export class Replay {
  private clock: number;
  private readonly aggregator: Aggregator;
  private readonly metrics: ReplayMetrics;
  private readonly engine = new RuleEngine();
  private readonly resolved: AlertResolution[] = [];
  private readonly digests: DigestDue[] = [];

  /**
   * `startAt`: the first event fed (the warm-up's start: the metrics begin there); `activeFrom`:
   * the rule enters evaluation then, as a rule made ACTIVE at that moment would.
   */
  constructor(
    private readonly rule: ActiveRule,
    startAt: number,
    private readonly activeFrom: number,
    limits: Partial<MetricsLimits> = {},
  ) {
    this.clock = startAt;
    this.aggregator = new Aggregator({ ...limits, now: () => this.clock });
    this.metrics = new ReplayMetrics(this.aggregator, () => this.clock, clockBound(rule));
    this.engine.setRules([rule], activeFrom);
    this.aggregator.watch(this.engine.watchedKeys());
  }

  /** A committed batch, received by `at` (each event's receivedAt <= at), in receipt order. */
  feed(events: readonly MetricEvent[], at: number): void {
    if (events.length === 0) return;
    this.advance(at);
    this.aggregator.record(events);
    this.metrics.changed();
    // PATTERN rules match the events here, as in the actor (they carry their detail: the reads
    // ask for it). ANOMALY needs nothing per event: its series read the completed buckets.
    this.engine.observe(events);
  }

  /** One evaluation at `at` (>= every time fed or ticked before). */
  tick(at: number): TickOutcome {
    this.advance(at);
    this.resolved.length = 0;
    this.digests.length = 0;
    const fired = this.engine.tick(this.metrics, at, this.resolved, this.digests);
    return { resolved: this.resolved, digests: this.digests, fired };
  }

  /**
   * ANOMALY: the stored history its series needs before the replay's first event (empty for
   * the other types); answer each with seedAnomaly, as the front answers the metrics actor.
   */
  backfillRequests(): BackfillRequest[] {
    return this.engine.backfillRequests(this.clock);
  }

  seedAnomaly(answer: BackfillAnswer): void {
    this.engine.seedAnomaly(answer);
  }

  /** The rule's values now, as an alert shows them (the chart's points). */
  values(): Readonly<Record<string, number>> {
    const anomaly = this.engine.anomalyRule(this.rule.id);
    if (anomaly !== undefined) return anomaly.explain().currentValues;
    const { ruleType, ruleConfig } = this.rule;
    return evaluateRule(ruleType, ruleConfig, this.metrics, this.activeFrom).currentValues;
  }

  /** ANOMALY: its series is LEARNING (judges nothing: the chart draws no band); else false. */
  learning(): boolean {
    return this.engine.anomalyRule(this.rule.id)?.status().learning ?? false;
  }

  private advance(at: number): void {
    if (at > this.clock) this.clock = at;
  }
}
