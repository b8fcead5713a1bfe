/**
 * @module The ACTIVE PATTERN rules of the evaluator (metrics actor): committed events reach them
 * through observe() in commit order (the backtest calls the same), each event once (a repeat of
 * a recent id is dropped), and only the rules that read its type (plus those with a strict step,
 * which every event of a partition affects). Each tick moves what completed since the previous
 * tick into that tick's evaluation: the rule holds when a sequence completed.
 */
import { isDetailed, type MetricEvent } from '../../../event.ts';
import type { ExplainedPattern } from '../../alerts/alert.ts';
import type { ActiveRule } from '../../rule.ts';
import type { PatternConfig } from './pattern-config.ts';
import { storedPatternConfig } from './pattern-validation.ts';
import { explainPattern, matchWords } from './pattern-explanation.ts';
import { PatternMatcher, type MatcherState, type PatternMatch } from './pattern-matcher.ts';
import { EXPLAINED_MATCHES } from './pattern-explanation.ts';
import { RecentIds } from './recent-ids.ts';

/** Ids remembered against re-delivery: about 25 s of ingest at 5,000 events/s, ~6 MB at most. */
const RECENT_IDS = 131_072;

/** What a PATTERN rule reports in GET /rules/{id}/status. */
export interface PatternStatus {
  /** Partition keys held now (each a few numbers per step). */
  readonly partitions: number;
  readonly maxPartitions: number;
  /** Keys dropped past maxPartitions, least recently used first, since the rule was loaded. */
  readonly partitionsEvicted: number;
  /** Sequences completed since the rule was loaded. */
  readonly matches: number;
}

/** One evaluation of a PATTERN rule, in the evaluator's terms. */
export interface PatternEvaluation {
  readonly wouldTrigger: boolean;
  readonly matchedConditions: string[];
  readonly currentValues: Record<string, number>;
  readonly explanation: ExplainedPattern;
}

/** One rule's part of a metrics checkpoint (issue 33); restored only under the same config. */
export interface SavedPatternRule {
  readonly configText: string;
  readonly matcher: MatcherState;
  /** Completed since the last tick, not evaluated yet. */
  readonly fresh: readonly PatternMatch[];
  readonly freshCount: number;
  readonly matches: number;
}

class PatternRule {
  readonly matcher: PatternMatcher;
  /** Completed since the last tick: the first few, and how many. */
  private fresh: PatternMatch[] = [];
  private freshCount = 0;
  /** The last tick's. */
  private current: PatternMatch[] = [];
  private currentCount = 0;
  matches = 0;

  constructor(
    readonly config: PatternConfig,
    readonly configText: string,
  ) {
    this.matcher = new PatternMatcher(config);
  }

  add(match: PatternMatch): void {
    this.matches++;
    if (this.freshCount++ < EXPLAINED_MATCHES) this.fresh.push(match);
  }

  tick(now: number): void {
    const deadlines: PatternMatch[] = [];
    this.matcher.tick(now, deadlines);
    for (const match of deadlines) this.add(match);
    this.current = this.fresh;
    this.currentCount = this.freshCount;
    this.fresh = [];
    this.freshCount = 0;
  }

  holds(): boolean {
    return this.currentCount > 0;
  }

  evaluation(): PatternEvaluation {
    const explanation = explainPattern(this.config, this.current, this.currentCount);
    return {
      wouldTrigger: explanation.result,
      matchedConditions: explanation.matches.map((m) =>
        matchWords(explanation.partitionBy, m, explanation.withinMinutes),
      ),
      currentValues: { matches: this.currentCount, partitions: this.matcher.size() },
      explanation,
    };
  }

  save(): SavedPatternRule {
    return {
      configText: this.configText,
      matcher: this.matcher.save(),
      fresh: this.fresh,
      freshCount: this.freshCount,
      matches: this.matches,
    };
  }

  restore(saved: SavedPatternRule): void {
    this.matcher.restore(saved.matcher);
    this.fresh = [...saved.fresh];
    this.freshCount = saved.freshCount;
    this.matches = saved.matches;
  }

  status(): PatternStatus {
    return {
      partitions: this.matcher.size(),
      maxPartitions: this.config.maxPartitions,
      partitionsEvicted: this.matcher.evicted,
      matches: this.matches,
    };
  }
}

export class PatternRules {
  private readonly rules = new Map<number, PatternRule>();
  /** Rules by the event types they read; `everyEvent`: those with a strict step. */
  private byType = new Map<string, PatternRule[]>();
  private everyEvent: PatternRule[] = [];
  private readonly recent = new RecentIds(RECENT_IDS);

  /**
   * Keeps the PATTERN rules among `rules` (the whole ACTIVE set). A rule whose config is
   * unchanged keeps its partitions; an edited one starts empty (its steps may mean other things).
   */
  sync(rules: readonly ActiveRule[]): void {
    const next = new Map<number, PatternRule>();
    for (const rule of rules) {
      if (rule.ruleType !== 'PATTERN') continue;
      const text = JSON.stringify(rule.ruleConfig);
      const known = this.rules.get(rule.id);
      if (known?.configText === text) {
        next.set(rule.id, known);
        continue;
      }
      const config = storedPatternConfig(rule.ruleConfig);
      if (config !== null) next.set(rule.id, new PatternRule(config, text));
    }
    this.rules.clear();
    this.byType = new Map();
    this.everyEvent = [];
    for (const [id, rule] of next) {
      this.rules.set(id, rule);
      if (rule.matcher.readsAllEvents) {
        this.everyEvent.push(rule);
        continue;
      }
      for (const type of rule.matcher.eventTypes) {
        const list = this.byType.get(type);
        if (list === undefined) this.byType.set(type, [rule]);
        else list.push(rule);
      }
    }
  }

  /** Whether any PATTERN rule is ACTIVE: only then do events carry what they read. */
  get active(): boolean {
    return this.rules.size > 0;
  }

  /** Committed events in commit order; those without detail (sent before the flag) are skipped. */
  observe(events: readonly MetricEvent[]): void {
    if (this.rules.size === 0) return;
    for (const event of events) {
      if (!isDetailed(event) || !this.recent.add(event.id)) continue;
      const typed = this.byType.get(event.eventType);
      if (typed !== undefined)
        for (const rule of typed) {
          const match = rule.matcher.observe(event);
          if (match !== null) rule.add(match);
        }
      for (const rule of this.everyEvent) {
        const match = rule.matcher.observe(event);
        if (match !== null) rule.add(match);
      }
    }
  }

  /** Each evaluation tick, before the rules are read: deadlines, sweeps, this tick's matches. */
  tick(now: number): void {
    for (const rule of this.rules.values()) rule.tick(now);
  }

  has(ruleId: number): boolean {
    return this.rules.has(ruleId);
  }

  /** Whether a sequence of the rule completed since the previous tick. */
  holds(ruleId: number): boolean {
    return this.rules.get(ruleId)?.holds() ?? false;
  }

  evaluation(ruleId: number): PatternEvaluation | undefined {
    return this.rules.get(ruleId)?.evaluation();
  }

  /** Each rule's partitions and matches, by rule id (engine-state.ts). */
  save(): Map<number, SavedPatternRule> {
    return new Map([...this.rules].map(([id, rule]) => [id, rule.save()]));
  }

  /** Into the rules of the same id and config; answers how many were restored. */
  restore(saved: ReadonlyMap<number, SavedPatternRule>): number {
    let restored = 0;
    for (const [id, rule] of this.rules) {
      const kept = saved.get(id);
      if (kept === undefined || kept.configText !== rule.configText) continue;
      rule.restore(kept);
      restored++;
    }
    return restored;
  }

  status(ruleId: number): PatternStatus | undefined {
    return this.rules.get(ruleId)?.status();
  }
}
