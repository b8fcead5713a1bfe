/**
 * @module The ANOMALY rules of the live evaluator (metrics actor): one series per rule, kept while
 * the rule's config is unchanged, back-filled once from stored events (asked for, answered later:
 * the evaluator's tick never waits), then fed each completed bucket from the live metrics. Pure:
 * the time of a tick comes in as an argument.
 */
import type { BucketRead, BucketedMetrics } from '../../../metrics/windows/bucket-read.ts';
import type { EvaluationResult } from '../../evaluator.ts';
import type { RuleConfig } from '../../rule-types.ts';
import { MINUTE_MS } from '../../../metrics/time.ts';
import { ROBUST_WINDOW_BUCKETS, SEASON_MINUTES, type AnomalyConfig } from './anomaly-config.ts';
import { bandValues, bandWords, explainBand, seriesName } from './anomaly-explanation.ts';
import { AnomalySeries, type AnomalySeriesStatus } from './anomaly-series.ts';
import { validateAnomalyConfig } from './anomaly-validation.ts';

/**
 * A bucket is complete this long after its end: events are counted by their receipt time, and
 * reach the metrics actor once committed (a group commit and a broadcast later).
 */
export const BUCKET_GRACE_MS = 5_000;
/** A series more than a day behind (an actor stall) skips to the metrics' 24 h. */
const MAX_CATCH_UP_MS = 1440 * MINUTE_MS;

/** Stored events to read for a series: buckets of `bucketMinutes` from `from` to `to` (epoch ms). */
export interface BackfillRequest {
  readonly ruleId: number;
  /** Which series of the rule asked (a config change starts a new one): the answer repeats it. */
  readonly generation: number;
  readonly read: BucketRead;
  readonly bucketMinutes: number;
  readonly from: number;
  readonly to: number;
}

/** The values of the buckets asked, oldest first, one per bucket (0 for a bucket without events). */
export interface BackfillAnswer {
  readonly ruleId: number;
  readonly generation: number;
  /** Null: the read failed; the series then learns from the live metrics only. */
  readonly values: readonly number[] | null;
}

/** An ANOMALY rule's status (the rule status endpoint and the rule test show it). */
export interface AnomalyStatus extends AnomalySeriesStatus {
  /** `pending`: the stored history is being read; until then the rule is LEARNING. */
  readonly backfill: 'pending' | 'done' | 'failed';
}

/** The ANOMALY config of a rule, or null for one stored before ANOMALY was accepted. */
export function anomalyConfigOf(config: RuleConfig): AnomalyConfig | null {
  const checked = validateAnomalyConfig(config as Record<string, unknown>);
  return checked.ok ? checked.config : null;
}

/**
 * How much stored history a series is back-filled with: what it needs to be ready (its
 * minHistoryMinutes, and enough to fill its baseline), then one alert window judged, so that an
 * anomaly already under way when the rule starts is seen at once.
 */
export function backfillMinutes(config: AnomalyConfig): number {
  const fill =
    config.algorithm === 'seasonal'
      ? 2 * SEASON_MINUTES[config.seasonality ?? 'daily']
      : ROBUST_WINDOW_BUCKETS * config.bucketMinutes;
  return Math.max(config.minHistoryMinutes, fill) + config.alertWindowMinutes;
}

/** After a restart, a FIRING rule may resolve once its alert window was judged again. */
export const anomalyRestoreMs = (config: AnomalyConfig): number =>
  (config.alertWindowMinutes + config.bucketMinutes) * MINUTE_MS + BUCKET_GRACE_MS;

const floorTo = (ms: number, step: number): number => Math.floor(ms / step) * step;

export class AnomalyRule {
  readonly series: AnomalySeries;
  private backfill: 'needed' | 'asked' | 'done' | 'failed' = 'needed';
  private asked: { from: number; to: number } | null = null;
  private readonly read: BucketRead;

  constructor(
    readonly ruleId: number,
    readonly generation: number,
    readonly config: AnomalyConfig,
  ) {
    this.series = new AnomalySeries(config);
    const { metric, eventType, source } = config;
    this.read = {
      metric,
      ...(eventType === undefined ? {} : { eventType }),
      ...(source === undefined ? {} : { source }),
    };
  }

  /** The back-fill to ask for once (then null): every completed bucket up to `now`. */
  request(now: number): BackfillRequest | null {
    if (this.backfill !== 'needed') return null;
    const bucketMs = this.series.bucketMs;
    const to = floorTo(now - BUCKET_GRACE_MS, bucketMs);
    const from = floorTo(to - backfillMinutes(this.config) * MINUTE_MS, bucketMs);
    this.backfill = 'asked';
    this.asked = { from, to };
    const { ruleId, generation, read } = this;
    return { ruleId, generation, read, bucketMinutes: this.config.bucketMinutes, from, to };
  }

  /** Learns from the live metrics only, from `at` on (a rule test's simulation). */
  startLive(at: number): void {
    this.series.skipTo(at);
    this.backfill = 'done';
  }

  /** Learns the back-filled buckets, oldest first; then the live ones follow from where it ended. */
  seed(values: readonly number[] | null): void {
    if (this.backfill !== 'asked' || this.asked === null) return;
    const { from, to } = this.asked;
    const bucketMs = this.series.bucketMs;
    if (values !== null) {
      // Aligned on the end: a shorter answer (storage clamps the range) is the newest buckets.
      const count = Math.min(values.length, Math.round((to - from) / bucketMs));
      const first = to - count * bucketMs;
      const skip = values.length - count;
      for (let i = 0; i < count; i++)
        this.series.observe(first + i * bucketMs, values[skip + i] ?? 0);
    }
    if (!(this.series.until >= to)) this.series.skipTo(to);
    this.backfill = values === null ? 'failed' : 'done';
  }

  /** Feeds the buckets completed by `now` (each read once) and answers whether the rule holds. */
  advance(metrics: Partial<BucketedMetrics>, now: number): boolean {
    if (this.backfill === 'needed' || this.backfill === 'asked') return false;
    const bucketMs = this.series.bucketMs;
    let start = this.series.until;
    if (now - start > MAX_CATCH_UP_MS) {
      start = floorTo(now - MAX_CATCH_UP_MS, bucketMs);
      this.series.skipTo(start);
    }
    while (start + bucketMs + BUCKET_GRACE_MS <= now) {
      const value =
        metrics.bucketValue?.(this.read, start / MINUTE_MS, (start + bucketMs) / MINUTE_MS) ?? null;
      this.series.observe(start, value);
      start += bucketMs;
    }
    return this.series.holds();
  }

  status(): AnomalyStatus {
    const backfill =
      this.backfill === 'done' || this.backfill === 'failed' ? this.backfill : 'pending';
    return {
      ...this.series.status(),
      learning: this.series.learning || backfill === 'pending',
      backfill,
    };
  }

  /** The detailed result of the last judged bucket (a transition or a rule test). */
  explain(): EvaluationResult {
    const status = this.status();
    const wouldTrigger = !status.learning && this.series.holds();
    const explanation = explainBand(this.config, status, wouldTrigger);
    const name = seriesName(this.config);
    const words = bandWords(explanation, name);
    return {
      wouldTrigger,
      matchedConditions: wouldTrigger ? [words] : [],
      currentValues: bandValues(explanation, name),
      explanation,
      ...(status.learning
        ? {
            note: `LEARNING: ${status.historyMinutes} of ${status.minHistoryMinutes} minutes of history covered; the rule does not fire before`,
          }
        : {}),
    };
  }
}

/**
 * The bucket reads of one tick, each answered once: series that share a read (every latencyP95
 * rule reads the same merged histograms) and complete on the same tick cost one read.
 */
class TickReads implements BucketedMetrics {
  private readonly values = new Map<string, number | null>();
  private source: Partial<BucketedMetrics> = {};

  reset(source: Partial<BucketedMetrics>): this {
    this.values.clear();
    this.source = source;
    return this;
  }

  bucketValue(read: BucketRead, fromMinute: number, toMinute: number): number | null {
    const key = `${read.metric} ${fromMinute} ${toMinute} ${read.eventType ?? ''}\u0000${read.source ?? ''}`;
    let value = this.values.get(key);
    if (value === undefined) {
      value = this.source.bucketValue?.(read, fromMinute, toMinute) ?? null;
      this.values.set(key, value);
    }
    return value;
  }
}

/** The series of the ACTIVE ANOMALY rules, by rule id. */
export class AnomalyRules {
  private readonly rules = new Map<number, { key: string; rule: AnomalyRule }>();
  private generations = 0;
  private readonly reads = new TickReads();

  /** `metrics` for one tick's advance() calls, each distinct bucket read once. */
  tickReads(metrics: Partial<BucketedMetrics>): BucketedMetrics {
    return this.reads.reset(metrics);
  }

  /**
   * The series of a rule: the one it has while its config is unchanged (a rename or a new
   * severity keeps the learnt baseline), else a new one to back-fill. Null for a config stored
   * before ANOMALY was accepted: such a rule never fires.
   */
  of(ruleId: number, ruleConfig: RuleConfig): AnomalyRule | null {
    const config = anomalyConfigOf(ruleConfig);
    if (config === null) {
      this.rules.delete(ruleId);
      return null;
    }
    const { pendingSeconds: _p, keepFiringSeconds: _k, ...judged } = config;
    const key = JSON.stringify(judged);
    const known = this.rules.get(ruleId);
    if (known?.key === key) return known.rule;
    const rule = new AnomalyRule(ruleId, ++this.generations, config);
    this.rules.set(ruleId, { key, rule });
    return rule;
  }

  /** Forgets the rules `keep` says left evaluation. */
  retain(keep: (ruleId: number) => boolean): void {
    for (const id of this.rules.keys()) if (!keep(id)) this.rules.delete(id);
  }

  get(ruleId: number): AnomalyRule | undefined {
    return this.rules.get(ruleId)?.rule;
  }

  /** The back-fills to ask for now (each series asks once). */
  requests(now: number): BackfillRequest[] {
    const out: BackfillRequest[] = [];
    for (const { rule } of this.rules.values()) {
      const request = rule.request(now);
      if (request !== null) out.push(request);
    }
    return out;
  }

  /** An answer for a series that was since replaced or dropped is ignored. */
  seed(answer: BackfillAnswer): void {
    const rule = this.rules.get(answer.ruleId)?.rule;
    if (rule?.generation === answer.generation) rule.seed(answer.values);
  }
}
