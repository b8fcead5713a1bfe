/**
 * @module Which rules a partial view of the events would mislead (cluster mode, issue 23): those
 * that count events. While an instance's metrics miss a live peer's batches, a count or a rate
 * reads low, a producer reads silent and an awaited event reads absent, so such a rule would fire
 * "rate dropped" or resolve "back to normal" on data that is only missing: it is held DEGRADED
 * instead. Ratios and latencies (errorRate, latency percentiles) are judged on the events that are
 * there; a partial view samples them but does not bias them. Pure.
 */
import { kindOf } from './kinds/registry.ts';
import type { RuleConfig } from './rule-types.ts';

/** Whether the rule is held DEGRADED while the view is incomplete: as its kind says. */
export const countsEvents = (ruleType: string, ruleConfig: RuleConfig): boolean =>
  kindOf(ruleType).evaluation.countsEvents(ruleConfig);
