/**
 * @module The live rule evaluator (metrics actor): holds the ACTIVE rules, prepared once per change
 * as one set, and each tick evaluates them in priority order against the live metrics of one moment
 * (each distinct value read computed once), stepping each rule's lifecycle (lifecycle.ts): it fires
 * a rule whose condition held for pendingSeconds and whose throttling allows, and resolves a FIRING
 * one whose condition (with recovery thresholds) was false for keepFiringSeconds. Pure: time comes
 * in as an argument.
 */
import type { WindowReads, WindowedMetrics } from '../metrics/windows/window-reads.ts';
import type { BucketedMetrics } from '../metrics/windows/bucket-read.ts';
import {
  AnomalyRules,
  type AnomalyRule,
  type AnomalyStatus,
  type BackfillAnswer,
  type BackfillRequest,
} from './kinds/anomaly/anomaly-rules.ts';
import {
  PreparedSet,
  explainRule,
  holds,
  holdsWhileFiring,
  type PreparedRule,
} from './evaluator.ts';
import { prepareRule } from './rule-evaluation.ts';
import { conditionText } from './condition-text.ts';
import type { AlertResolution, DigestDue, FiredAlert, RulePending } from './alerts/alert.ts';
import { explanationText } from './explanation.ts';
import { RuleLifecycle, type LifecycleState, type LifecycleTimes } from './alerts/lifecycle.ts';
import type { ActiveRule } from './rule.ts';
import { kindOf } from './kinds/registry.ts';
import { lifecycleOf, type RuleConfig } from './rule-types.ts';
import { Throttle } from './alerts/throttle.ts';
import type { MetricEvent } from '../event.ts';
import {
  PatternRules,
  type PatternStatus,
  type SavedPatternRule,
} from './kinds/pattern/pattern-rules.ts';
import { countsEvents } from './partial-view.ts';
import { watchedKeysOf } from './watched-keys.ts';
import type { WatchedKeys } from '../metrics/state/last-event-times.ts';

/** GET /rules/{id}/status: the lifecycle state, and what the rule's type adds of its own. */
export interface RuleRuntimeStatus {
  /**
   * LEARNING: an ANOMALY rule whose history does not cover minHistoryMinutes yet. DEGRADED: a
   * rule that counts events, held (no fire, no resolve) while the view of the cluster's events is
   * incomplete (partial-view.ts).
   */
  readonly state: RuleState;
  /** PATTERN rules: their partitions. */
  readonly pattern?: PatternStatus;
  /** ANOMALY rules: their series (learning, history covered, back-fill, last band). */
  readonly anomaly?: AnomalyStatus;
  /** PENDING: why it waits (pending since ..., suppressed until ...). */
  readonly reason?: string;
}

/** What GET /rules/{id}/status and the rule test say of an ACTIVE rule. */
export type RuleState = LifecycleState | 'LEARNING' | 'DEGRADED';

interface Entry {
  readonly rule: ActiveRule;
  /** Held DEGRADED while the view is incomplete (partial-view.ts). */
  readonly countsEvents: boolean;
  readonly prepared: PreparedRule;
  readonly throttle: Throttle;
  readonly lifecycle: RuleLifecycle;
  readonly times: LifecycleTimes;
  readonly condition: string;
  /** ANOMALY: its series (judged instead of the prepared program); null for the other types. */
  readonly anomaly: AnomalyRule | null;
}

/** The span of metrics a rule reads, in ms, as its kind says (RATE_CHANGE reads two windows). */
export const readSpanMs = (ruleType: string, config: RuleConfig): number =>
  kindOf(ruleType).evaluation.readSpanMs(config);

const byPriority = (a: ActiveRule, b: ActiveRule): number => b.priority - a.priority || a.id - b.id;

/** Dropped or replaced rules tolerated in the set before it is rebuilt (they cost each tick). */
const MIN_GARBAGE = 100;

export class RuleEngine {
  private entries: Entry[] = [];
  private set = new PreparedSet();
  /** Rules dropped or replaced since the set was built: their program and reads are dead. */
  private garbage = 0;
  private readonly throttles = new Map<number, Throttle>();
  private readonly lifecycles = new Map<number, RuleLifecycle>();
  /**
   * When each rule entered the set (became ACTIVE, or the set was first loaded): a
   * producer-silent metric of a key with no event yet counts from it. Edits keep it.
   */
  private readonly activeSince = new Map<number, number>();
  /** The PATTERN rules' matchers: fed committed events by observe(), read by tick(). */
  private readonly patterns = new PatternRules();
  /** The series of the ANOMALY rules, kept while their config is unchanged. */
  private readonly anomalies = new AnomalyRules();
  /**
   * False while the metrics miss a live peer's events (cluster mode): the rules that count
   * events are held as they are, neither fired nor resolved, and continue from there once true.
   */
  private viewComplete = true;

  /**
   * Replaces the set of ACTIVE rules. A rule already known keeps its throttling and lifecycle
   * state (it may hold alerts not yet stored); a new one starts from its stored alert history and
   * open incident. Answers the ids of the rules that left the set while FIRING: their incidents
   * are to be resolved (the rule was paused, archived or deleted). `now`: the time of the change
   * (a new rule's activation; -Infinity: unknown, silence then counts from the metrics' start).
   */
  setRules(rules: readonly ActiveRule[], now = Number.NEGATIVE_INFINITY): number[] {
    const entries: Entry[] = [];
    const set = new PreparedSet();
    const keep = new Map<number, Entry>();
    // Prepared in evaluation order: a tick walks the compiled program from start to end.
    for (const rule of [...rules].sort(byPriority)) {
      const entry = this.entryOf(rule, set, now);
      keep.set(rule.id, entry);
      entries.push(entry);
    }
    const left = this.leaving((id) => !keep.has(id));
    this.throttles.clear();
    this.lifecycles.clear();
    for (const id of this.activeSince.keys()) if (!keep.has(id)) this.activeSince.delete(id);
    this.anomalies.retain((id) => keep.get(id)?.anomaly != null);
    for (const [id, entry] of keep) {
      this.throttles.set(id, entry.throttle);
      this.lifecycles.set(id, entry.lifecycle);
    }
    set.reads.groups(); // grouped here rather than in the first tick
    this.entries = entries;
    this.set = set;
    this.garbage = 0;
    this.patterns.sync(rules);
    return left;
  }

  /** The FIRING rules that `gone` says leave the set (their lifecycle is forgotten). */
  private leaving(gone: (id: number) => boolean): number[] {
    const left: number[] = [];
    for (const [id, lifecycle] of this.lifecycles) {
      if (!gone(id)) continue;
      if (lifecycle.state === 'FIRING') left.push(id);
      this.lifecycles.delete(id);
    }
    return left;
  }

  /**
   * Replaces the rules of `ids` with `rules` (those of them that are ACTIVE now; an id without a
   * rule is dropped): the others keep their preparation and throttling. New rules are appended to
   * the prepared set; once the dead parts outgrow the live ones, the set is rebuilt (amortised O(1)
   * per change). Answers the ids of the rules that left the set while FIRING, as setRules does.
   */
  putRules(
    ids: readonly number[],
    rules: readonly ActiveRule[],
    now = Number.NEGATIVE_INFINITY,
  ): number[] {
    const changed = new Set(ids);
    const active = new Set(rules.map((rule) => rule.id));
    const kept = this.entries.filter((entry) => !changed.has(entry.rule.id));
    for (const id of ids) {
      if (active.has(id)) continue;
      this.throttles.delete(id);
      this.activeSince.delete(id);
    }
    this.anomalies.retain((id) => !changed.has(id) || active.has(id));
    const left = this.leaving((id) => changed.has(id) && !active.has(id));
    this.garbage += this.entries.length - kept.length;
    if (this.garbage > Math.max(MIN_GARBAGE, kept.length + rules.length)) {
      this.setRules([...kept.map((entry) => entry.rule), ...rules], now);
      return left;
    }
    const added = rules.map((rule) => this.entryOf(rule, this.set, now));
    this.entries = [...kept, ...added].sort((a, b) => byPriority(a.rule, b.rule));
    this.set.reads.groups();
    this.patterns.sync(this.entries.map((entry) => entry.rule));
    return left;
  }

  /**
   * A rule already known keeps its throttling and lifecycle state; a new one starts from its
   * stored alerts, FIRING when it has an open incident.
   */
  private entryOf(rule: ActiveRule, set: PreparedSet, now: number): Entry {
    let throttle = this.throttles.get(rule.id);
    if (throttle === undefined) {
      throttle = new Throttle(rule);
      this.throttles.set(rule.id, throttle);
    }
    let lifecycle = this.lifecycles.get(rule.id);
    if (lifecycle === undefined) {
      lifecycle =
        rule.firingSince === null
          ? new RuleLifecycle()
          : RuleLifecycle.firingSince(rule.firingSince);
      this.lifecycles.set(rule.id, lifecycle);
    }
    let activeSince = this.activeSince.get(rule.id);
    if (activeSince === undefined) {
      activeSince = now;
      this.activeSince.set(rule.id, now);
    }
    const { pendingSeconds, keepFiringSeconds } = lifecycleOf(rule.ruleConfig);
    return {
      rule,
      prepared: prepareRule(rule.ruleType, rule.ruleConfig, set, activeSince),
      throttle,
      lifecycle,
      times: {
        pendingMs: pendingSeconds * 1000,
        keepFiringMs: keepFiringSeconds * 1000,
        restoreMs: readSpanMs(rule.ruleType, rule.ruleConfig),
      },
      condition: conditionText(rule.ruleType, rule.ruleConfig),
      countsEvents: countsEvents(rule.ruleType, rule.ruleConfig),
      anomaly: kindOf(rule.ruleType).evaluation.bandSeries
        ? this.anomalies.of(rule.id, rule.ruleConfig)
        : null,
    };
  }

  size(): number {
    return this.entries.length;
  }

  /**
   * Forgets every rule's lifecycle and throttling, without resolving anything: the next setRules
   * rebuilds them from the stored alerts (a new rule leader takes over from what its predecessor
   * stored, not from what this instance last decided when it led).
   */
  forget(): void {
    this.lifecycles.clear();
    this.throttles.clear();
  }

  /** Whether the metrics hold every live instance's events (cluster mode; always true alone). */
  setViewComplete(complete: boolean): void {
    this.viewComplete = complete;
  }

  /**
   * A tick while this instance does not evaluate (not the rule leader): the PATTERN matchers move
   * on (their partial matches expire, their memory stays bounded); nothing is decided.
   */
  idle(now: number): void {
    this.patterns.tick(now);
  }

  /** The reads of the current set (the metrics keep the producers they watch past the caps). */
  reads(): WindowReads {
    return this.set.reads;
  }

  /** The types and sources the ACTIVE rules name: the metrics count them by name past the caps. */
  watchedKeys(): WatchedKeys {
    return watchedKeysOf(this.entries.map((entry) => entry.rule));
  }

  /** The ACTIVE rules with their lifecycles (rules/engine-state.ts checkpoints them). */
  lifecyclesOfRules(): { readonly rule: ActiveRule; readonly lifecycle: RuleLifecycle }[] {
    return this.entries.map(({ rule, lifecycle }) => ({ rule, lifecycle }));
  }

  /** The PATTERN rules' partitions and matches, by rule id (rules/engine-state.ts). */
  savePatterns(): Map<number, SavedPatternRule> {
    return this.patterns.save();
  }

  /** Restored into the PATTERN rules of the same id and config; answers how many. */
  restorePatterns(saved: ReadonlyMap<number, SavedPatternRule>): number {
    return this.patterns.restore(saved);
  }

  /** When an ACTIVE rule entered the set (for the rule test), or undefined. */
  activeSinceOf(ruleId: number): number | undefined {
    return this.activeSince.get(ruleId);
  }

  /**
   * Committed events, in commit order (the metrics actor; the backtest replays the same way):
   * PATTERN rules match them. An event seen before (same id) is not counted again.
   */
  observe(events: readonly MetricEvent[]): void {
    this.patterns.observe(events);
  }

  /** Whether committed events must carry what PATTERN rules read (an ACTIVE one exists). */
  needsEventDetail(): boolean {
    return this.patterns.active;
  }

  /** The runtime status of an ACTIVE rule, or undefined when it is not in the set. */
  /** `now`: the time the PENDING reason is told at (without it, no reason). */
  statusOf(ruleId: number, now?: number): RuleRuntimeStatus | undefined {
    const state = this.stateOf(ruleId);
    if (state === undefined) return undefined;
    const pattern = this.patterns.status(ruleId);
    const anomaly = this.anomalies.get(ruleId)?.status();
    const pending =
      state === 'PENDING' && now !== undefined
        ? this.pending(now).find((p) => p.ruleId === ruleId)
        : undefined;
    return {
      state,
      ...(pattern === undefined ? {} : { pattern }),
      ...(anomaly === undefined ? {} : { anomaly }),
      ...(pending === undefined ? {} : { reason: pending.reason }),
    };
  }

  /**
   * The rules PENDING at `now` and why (issue 34): waiting out pendingSeconds, or held by the
   * suppression window of their last incident (they fire once it has passed, if still holding).
   */
  pending(now: number): RulePending[] {
    const out: RulePending[] = [];
    for (const { rule, lifecycle, throttle } of this.entries) {
      if (lifecycle.state !== 'PENDING') continue;
      const since = new Date(lifecycle.pendingSince).toISOString();
      const until = throttle.suppressedUntil(rule, now);
      const suppressedUntil = until === null ? null : new Date(until).toISOString();
      out.push({
        kind: 'pending',
        ruleId: rule.id,
        ruleName: rule.name,
        severity: rule.severity,
        pendingSince: since,
        suppressedUntil,
        reason:
          suppressedUntil === null
            ? `pending since ${since}`
            : `pending since ${since}, suppressed until ${suppressedUntil} (suppressionWindowMinutes ${rule.suppressionWindowMinutes})`,
      });
    }
    return out;
  }

  /**
   * The lifecycle state of an ACTIVE rule, or undefined (for the rule test's message); LEARNING:
   * an ANOMALY rule that is OK and has not covered its minHistoryMinutes yet (it cannot fire).
   */
  stateOf(ruleId: number): RuleState | undefined {
    const state = this.lifecycles.get(ruleId)?.state;
    if (state === undefined) return undefined;
    if (!this.viewComplete && this.entries.find((e) => e.rule.id === ruleId)?.countsEvents === true)
      return 'DEGRADED';
    if (state === 'OK' && this.anomalies.get(ruleId)?.status().learning === true) return 'LEARNING';
    return state;
  }

  /** An ACTIVE ANOMALY rule's series: learning, history covered, last band; else undefined. */
  anomalyStatus(ruleId: number): AnomalyStatus | undefined {
    return this.anomalies.get(ruleId)?.status();
  }

  /** The ACTIVE ANOMALY rule of `ruleId` (the rule test explains its live series), or undefined. */
  anomalyRule(ruleId: number): AnomalyRule | undefined {
    return this.anomalies.get(ruleId);
  }

  /** Stored history to read for ANOMALY series that have none yet (each asked for once). */
  backfillRequests(now: number): BackfillRequest[] {
    return this.anomalies.requests(now);
  }

  /** The stored history a backfillRequests() entry asked for. */
  seedAnomaly(answer: BackfillAnswer): void {
    this.anomalies.seed(answer);
  }

  /**
   * Why a stored rule's next incident would be held back or not notified right now, or undefined
   * (for the rule test's message).
   */
  throttleNote(ruleId: number, now: number): string | undefined {
    const entry = this.entries.find((e) => e.rule.id === ruleId);
    return entry?.throttle.note(entry.rule, now) ?? undefined;
  }

  /**
   * Evaluates every rule, highest priority first; returns the alerts to fire, in that order, and
   * appends the incidents that resolved to `resolved` and the digests due to `digests`.
   */
  tick(
    live: WindowedMetrics & Partial<BucketedMetrics>,
    now: number,
    resolved: AlertResolution[] = [],
    digests: DigestDue[] = [],
  ): FiredAlert[] {
    const values = live.valuesOf(this.set.reads);
    this.patterns.tick(now);
    const buckets = this.anomalies.tickReads(live);
    const fired: FiredAlert[] = [];
    for (const entry of this.entries) {
      const { lifecycle, prepared, anomaly } = entry;
      const since = entry.throttle.digestDue(entry.rule, now);
      if (since !== null) digests.push(digestDue(entry.rule, since, now));
      // DEGRADED: held as it is; an ANOMALY series catches up on the buckets it skipped.
      if (entry.countsEvents && !this.viewComplete) continue;
      const firing = lifecycle.state === 'FIRING';
      const { id } = entry.rule;
      // A PATTERN rule holds when a sequence completed since the previous tick.
      const pattern = this.patterns.has(id);
      const holding = pattern
        ? this.patterns.holds(id)
        : anomaly !== null
          ? anomaly.advance(buckets, now)
          : firing
            ? holdsWhileFiring(prepared, values)
            : holds(prepared, values);
      const step = lifecycle.observe(holding, now, entry.times);
      if (step === null) continue;
      if (step === 'resolve') {
        const result =
          this.patterns.evaluation(id) ?? anomaly?.explain() ?? explainRule(prepared, values, true);
        resolved.push({
          ruleId: entry.rule.id,
          resolvedAt: now,
          cause: 'condition-cleared',
          valuesAtResolve: result.currentValues,
          resolveExplanation: result.explanation,
        });
        continue;
      }
      // Held back by suppression: it stays PENDING and fires once the window has passed.
      if (entry.throttle.suppressed(entry.rule, now) !== null) continue;
      const result =
        this.patterns.evaluation(id) ?? anomaly?.explain() ?? explainRule(prepared, values);
      if (!result.wouldTrigger) continue;
      lifecycle.fired(now);
      const { rule } = entry;
      const heldByBudget = entry.throttle.fired(rule, now) === 'hold';
      fired.push({
        ruleId: rule.id,
        ruleName: rule.name,
        ruleVersion: rule.version,
        severity: rule.severity,
        triggeredAt: now,
        matchedConditions: result.matchedConditions,
        currentValues: result.currentValues,
        condition: entry.condition,
        message: `Rule '${rule.name}' (${rule.severity}) triggered: ${result.matchedConditions.join('; ')}`,
        explanation: result.explanation,
        explanationText: explanationText(result.explanation),
        notificationChannels: rule.notificationChannels,
        notificationConfig: rule.notificationConfig,
        heldByBudget,
      });
    }
    return fired;
  }
}

const digestDue = (rule: ActiveRule, since: number, until: number): DigestDue => ({
  ruleId: rule.id,
  ruleName: rule.name,
  ruleVersion: rule.version,
  severity: rule.severity,
  notificationChannels: rule.notificationChannels,
  notificationConfig: rule.notificationConfig,
  maxAlertsPerHour: rule.maxAlertsPerHour,
  since,
  until,
});
