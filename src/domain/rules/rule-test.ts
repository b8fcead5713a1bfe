/**
 * @module The rule test (spec 2.9, 4.3; DESIGN 6): validate, compile the DRL, simulate against the
 * current metrics, and shape the result. Saved or unsaved rules alike; nothing is stored.
 */
import type { WindowedMetrics } from '../metrics/windows/window-reads.ts';
import type { Explanation } from './alerts/alert.ts';
import { compileDrl } from './drl.ts';
import type { EvaluationResult } from './evaluator.ts';
import { ruleKinds, type RuleKindRegistry } from './kinds/registry.ts';
import { recommendations, ruleWarnings } from './rule-advice.ts';
import { validateRuleConfig } from './rule-config-validation.ts';
import { RULE_DEFAULTS } from './rule-types.ts';
import type { RuleFields } from './rule.ts';
import type { BucketedMetrics } from '../metrics/windows/bucket-read.ts';
import type { AnomalyRule } from './kinds/anomaly/anomaly-rules.ts';

/** A saved or unsaved rule as tested: its config not yet validated, the optional fields defaulted. */
export interface RuleTestInput
  extends
    Pick<RuleFields, 'name' | 'ruleType' | 'severity'>,
    Partial<Pick<RuleFields, 'priority' | 'suppressionWindowMinutes'>> {
  /** The stored rule's id (POST /rules/test/{id}); absent or null for an unsaved rule. */
  readonly id?: number | null | undefined;
  readonly ruleConfig: unknown;
  readonly notificationChannels?: readonly string[] | null | undefined;
}

export type CompilationStatus = 'SUCCESS' | 'WARNING' | 'ERROR';

export interface SimulationResult {
  readonly wouldTrigger: boolean;
  readonly matchedConditions: string[];
  readonly currentValues: Record<string, number>;
  /** The condition tree as evaluated now, as an alert's `explanation` stores it. */
  readonly explanation: Explanation | null;
}

/** Spec 2.9, field for field. */
export interface RuleTestResult {
  readonly success: boolean;
  readonly message: string;
  readonly compilationStatus: CompilationStatus;
  readonly generatedDrl: string | null;
  readonly validationErrors: string[];
  readonly simulationResult: SimulationResult | null;
  readonly recommendations: string[];
}

function failed(message: string, validationErrors: string[]): RuleTestResult {
  return {
    success: false,
    message,
    compilationStatus: 'ERROR',
    generatedDrl: null,
    validationErrors,
    simulationResult: null,
    recommendations: [],
  };
}

/** What an ANOMALY rule test needs: the time, and the ACTIVE rule's own series when it has one. */
export interface AnomalyTestContext {
  readonly now?: number;
  readonly live?: AnomalyRule | undefined;
}

const sentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);

/**
 * Tests a rule against `metrics`. `throttleNote` (stored rules only) says that suppression or
 * maxAlertsPerHour currently hold the rule back; the simulation itself ignores throttling.
 * `activeSince`: when the rule became ACTIVE (now for one that is not), for producer-silent
 * metrics of keys with no event yet (evaluator.ts prepareRule).
 */
export function testRule(
  input: RuleTestInput,
  metrics: WindowedMetrics & Partial<BucketedMetrics>,
  throttleNote?: string,
  activeSince = Number.NEGATIVE_INFINITY,
  anomaly: AnomalyTestContext = {},
  kinds: RuleKindRegistry = ruleKinds(),
): RuleTestResult {
  const validation = validateRuleConfig(input.ruleType, input.ruleConfig, kinds);
  if (!validation.ok) {
    const n = validation.errors.length;
    return failed(`Rule validation failed with ${n} error${n === 1 ? '' : 's'}`, [
      ...validation.errors,
    ]);
  }
  const { config } = validation;
  const compiled = compileDrl(
    {
      id: input.id ?? null,
      name: input.name,
      ruleType: input.ruleType,
      severity: input.severity,
      priority: input.priority ?? RULE_DEFAULTS.priority,
      config,
    },
    kinds,
  );
  if (!compiled.ok) return failed('Rule compilation failed', [compiled.error]);

  const warnings = ruleWarnings(input.ruleType, config, metrics, kinds);
  const parts: string[] = [
    warnings.length === 0
      ? 'Rule compiled successfully'
      : `Rule compiled with warnings: ${warnings.join('; ')}`,
  ];
  let evaluation: EvaluationResult | null = null;
  const extra: string[] = [];
  const simulation = kinds.get(input.ruleType).ruleTest.simulate(config, {
    metrics,
    activeSince,
    now: anomaly.now,
    live: anomaly.live,
  });
  if (simulation !== null) {
    evaluation = simulation.evaluation;
    extra.push(...simulation.recommendations);
  }
  let simulationResult: SimulationResult | null = null;
  if (evaluation !== null) {
    simulationResult = {
      wouldTrigger: evaluation.wouldTrigger,
      matchedConditions: evaluation.matchedConditions,
      currentValues: evaluation.currentValues,
      explanation: evaluation.explanation,
    };
    parts.push(
      evaluation.wouldTrigger ? 'The rule would trigger now' : 'The rule would not trigger now',
    );
    if (evaluation.note !== undefined) parts.push(evaluation.note);
  }
  if (throttleNote !== undefined && throttleNote !== '') parts.push(throttleNote);

  return {
    success: true,
    message: parts.map(sentence).join(' '),
    compilationStatus: warnings.length === 0 ? 'SUCCESS' : 'WARNING',
    generatedDrl: compiled.drl,
    validationErrors: [],
    simulationResult,
    recommendations: [
      ...recommendations(
        {
          ruleType: input.ruleType,
          config,
          suppressionWindowMinutes: input.suppressionWindowMinutes,
          notificationChannels: input.notificationChannels,
        },
        kinds,
      ),
      ...extra,
    ],
  };
}
