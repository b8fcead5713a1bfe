/**
 * @module The live rule evaluator (metrics actor): holds the ACTIVE rules, prepared once per change
 * as one set, and each tick evaluates them in priority order against the live metrics of one moment
 * (each distinct value read computed once), firing those whose condition holds and whose throttling
 * allows. Pure: time comes in as an argument.
 */
import type { WindowedMetrics } from '../metrics/windows/window-reads.ts';
import { PreparedSet, explainRule, holds, prepareRule, type PreparedRule } from './evaluator.ts';
import { conditionText } from './condition-text.ts';
import type { FiredAlert } from './alert.ts';
import type { ActiveRule } from './rule.ts';
import { Throttle } from './throttle.ts';

interface Entry {
  readonly rule: ActiveRule;
  readonly prepared: PreparedRule;
  readonly throttle: Throttle;
  readonly condition: string;
}

const byPriority = (a: ActiveRule, b: ActiveRule): number => b.priority - a.priority || a.id - b.id;

/** Dropped or replaced rules tolerated in the set before it is rebuilt (they cost each tick). */
const MIN_GARBAGE = 100;

export class RuleEngine {
  private entries: Entry[] = [];
  private set = new PreparedSet();
  /** Rules dropped or replaced since the set was built: their program and reads are dead. */
  private garbage = 0;
  private readonly throttles = new Map<number, Throttle>();

  /**
   * Replaces the set of ACTIVE rules. A rule already known keeps its throttling state (it may
   * hold alerts not yet stored); a new one starts from its stored alert history.
   */
  setRules(rules: readonly ActiveRule[]): void {
    const entries: Entry[] = [];
    const set = new PreparedSet();
    const keep = new Map<number, Throttle>();
    // Prepared in evaluation order: a tick walks the compiled program from start to end.
    for (const rule of [...rules].sort(byPriority)) {
      const entry = this.entryOf(rule, set);
      keep.set(rule.id, entry.throttle);
      entries.push(entry);
    }
    this.throttles.clear();
    for (const [id, throttle] of keep) this.throttles.set(id, throttle);
    set.reads.groups(); // grouped here rather than in the first tick
    this.entries = entries;
    this.set = set;
    this.garbage = 0;
  }

  /**
   * Replaces the rules of `ids` with `rules` (those of them that are ACTIVE now; an id without a
   * rule is dropped): the others keep their preparation and throttling. New rules are appended to
   * the prepared set; once the dead parts outgrow the live ones, the set is rebuilt (amortised O(1)
   * per change).
   */
  putRules(ids: readonly number[], rules: readonly ActiveRule[]): void {
    const changed = new Set(ids);
    const kept = this.entries.filter((entry) => !changed.has(entry.rule.id));
    for (const id of ids) if (!rules.some((rule) => rule.id === id)) this.throttles.delete(id);
    this.garbage += this.entries.length - kept.length;
    if (this.garbage > Math.max(MIN_GARBAGE, kept.length + rules.length)) {
      this.setRules([...kept.map((entry) => entry.rule), ...rules]);
      return;
    }
    const added = rules.map((rule) => this.entryOf(rule, this.set));
    this.entries = [...kept, ...added].sort((a, b) => byPriority(a.rule, b.rule));
    this.set.reads.groups();
  }

  /** A rule already known keeps its throttling state; a new one starts from its stored alerts. */
  private entryOf(rule: ActiveRule, set: PreparedSet): Entry {
    let throttle = this.throttles.get(rule.id);
    if (throttle === undefined) {
      throttle = new Throttle(rule.recentAlerts);
      this.throttles.set(rule.id, throttle);
    }
    return {
      rule,
      prepared: prepareRule(rule.ruleType, rule.ruleConfig, set),
      throttle,
      condition: conditionText(rule.ruleType, rule.ruleConfig),
    };
  }

  size(): number {
    return this.entries.length;
  }

  /** Why a stored rule is held back right now, or undefined (for the rule test's message). */
  throttleNote(ruleId: number, now: number): string | undefined {
    const entry = this.entries.find((e) => e.rule.id === ruleId);
    return entry?.throttle.heldBack(entry.rule, now) ?? undefined;
  }

  /** Evaluates every rule, highest priority first; returns the alerts to fire, in that order. */
  tick(live: WindowedMetrics, now: number): FiredAlert[] {
    const values = live.valuesOf(this.set.reads);
    const fired: FiredAlert[] = [];
    for (const entry of this.entries) {
      if (!holds(entry.prepared, values)) continue;
      if (entry.throttle.heldBack(entry.rule, now) !== null) continue;
      const result = explainRule(entry.prepared, values);
      if (!result.wouldTrigger) continue;
      entry.throttle.fired(now);
      const { rule } = entry;
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
      });
    }
    return fired;
  }
}
