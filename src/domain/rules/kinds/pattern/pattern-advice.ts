/**
 * @module Recommendations for a PATTERN rule: what its config alone says. What the last hour of
 * events says (how many partitions it would have held) comes from the replay (pattern-replay.ts).
 */
import type { PatternConfig } from './pattern-config.ts';

export function patternRecommendations(config: PatternConfig): string[] {
  const out: string[] = [];
  if (config.steps.length === 1 && config.steps[0]?.times.min === 1 && config.absent === undefined)
    out.push(
      'A single step without times matches every event of its type: a THRESHOLD rule on eventsByType[...] says the same at a fraction of the cost',
    );
  if (config.keepFiringSeconds === undefined || config.keepFiringSeconds === 0)
    out.push(
      'keepFiringSeconds is 0: the incident resolves at the first evaluation (about a second) without a new match; set it to keep one incident open while matches keep coming',
    );
  return out;
}
