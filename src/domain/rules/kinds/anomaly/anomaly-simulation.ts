/**
 * @module The rule test of an ANOMALY rule: an ACTIVE rule's own series explains itself; any
 * other is simulated on what the live metrics hold (up to the last 24 h), learnt bucket by bucket
 * with the evaluator's own code. Pure: `now` is an argument.
 */
import type { BucketedMetrics } from '../../../metrics/windows/bucket-read.ts';
import { MINUTE_MS } from '../../../metrics/time.ts';
import type { EvaluationResult } from '../../evaluator.ts';
import type { AnomalyConfig } from './anomaly-config.ts';
import { AnomalyRule, type AnomalyStatus } from './anomaly-rules.ts';
import { sameAnomalyWhen } from './anomaly-drl.ts';

export interface AnomalySimulation {
  readonly result: EvaluationResult;
  readonly status: AnomalyStatus;
  /** True when `live` (the ACTIVE rule's own series) answered. */
  readonly live: boolean;
}

const DAY_MS = 1440 * MINUTE_MS;

export function simulateAnomaly(
  config: AnomalyConfig,
  metrics: Partial<BucketedMetrics>,
  now: number,
  live?: AnomalyRule,
): AnomalySimulation {
  // The live series only while it runs this config (an edit reaches the actor a moment later).
  if (live !== undefined && sameAnomalyWhen(live.config, config))
    return { result: live.explain(), status: live.status(), live: true };
  const rule = new AnomalyRule(0, 0, config);
  const bucketMs = config.bucketMinutes * MINUTE_MS;
  rule.startLive(Math.floor((now - DAY_MS) / bucketMs) * bucketMs + bucketMs);
  rule.advance(metrics, now);
  return { result: rule.explain(), status: rule.status(), live: false };
}
