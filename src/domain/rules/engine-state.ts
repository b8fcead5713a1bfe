/**
 * @module The rule engine's part of a metrics checkpoint (issue 33): each ACTIVE rule's lifecycle
 * (OK, PENDING since when, FIRING since when and clearing since when), by rule id and version.
 * Restored once the rules are set again after a restart, so that a PENDING rule keeps its pending
 * time and a FIRING one its clearing time; the stored alerts stay the truth for FIRING itself
 * (rule-engine.ts starts a rule FIRING from its open incident), so a lifecycle whose FIRING
 * disagrees with them (an incident resolved or opened after the checkpoint) is not restored.
 *
 * PATTERN rules keep their partitions, pending `absent` deadlines and matches not yet evaluated,
 * under the same config (pattern-matcher.ts MatcherState).
 *
 * Not kept here: throttling (rebuilt from the stored alerts, as before), ANOMALY series (read
 * again from the stored events by their back-fill).
 */
import { fromPlain, toPlain } from '../metrics/checkpoint/object-graph.ts';
import { newHistogram } from '../metrics/state/latency-histograms.ts';
import { RuleLifecycle } from './alerts/lifecycle.ts';
import type { SavedPatternRule } from './kinds/pattern/pattern-rules.ts';
import type { RuleEngine } from './rule-engine.ts';

interface SavedRule {
  readonly id: number;
  readonly version: number;
  /** RuleLifecycle through object-graph.ts toPlain. */
  readonly lifecycle: unknown;
  readonly firing: boolean;
}

export interface EngineState {
  readonly rules: readonly SavedRule[];
  /** Absent in a checkpoint written before PATTERN partitions were kept. */
  readonly patterns?: ReadonlyMap<number, SavedPatternRule>;
}

const RESTORERS = {
  classes: new Map<string, object>([[RuleLifecycle.name, RuleLifecycle.prototype]]),
  histogram: newHistogram,
};

export const takeEngineState = (engine: RuleEngine): EngineState => ({
  rules: engine.lifecyclesOfRules().map(({ rule, lifecycle }) => ({
    id: rule.id,
    version: rule.version,
    lifecycle: toPlain(lifecycle),
    firing: lifecycle.state === 'FIRING',
  })),
  patterns: engine.savePatterns(),
});

const isEngineState = (value: unknown): value is EngineState =>
  typeof value === 'object' &&
  value !== null &&
  Array.isArray((value as { rules?: unknown }).rules);

/** Whether a saved state holds PATTERN partitions to go on with (their events are replayed). */
export const savedPatterns = (saved: unknown): boolean =>
  isEngineState(saved) && saved.patterns instanceof Map && saved.patterns.size > 0;

/**
 * Restores the saved lifecycles into the engine's rules of the same id and version (in place:
 * the engine's entries keep their objects). Answers how many were restored.
 */
export function restoreEngineState(engine: RuleEngine, saved: unknown): number {
  if (!isEngineState(saved)) return 0;
  if (saved.patterns instanceof Map) engine.restorePatterns(saved.patterns);
  const byId = new Map(saved.rules.map((rule) => [rule.id, rule]));
  let restored = 0;
  for (const { rule, lifecycle } of engine.lifecyclesOfRules()) {
    const kept = byId.get(rule.id);
    if (kept === undefined || kept.version !== rule.version) continue;
    // The stored alerts decide FIRING: an incident opened or resolved since the checkpoint wins.
    if (kept.firing !== (rule.firingSince !== null)) continue;
    fromPlain(kept.lifecycle, lifecycle, RESTORERS);
    lifecycle.restartedFiring();
    restored++;
  }
  return restored;
}
