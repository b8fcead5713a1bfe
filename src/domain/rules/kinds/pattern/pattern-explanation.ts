/**
 * @module A PATTERN rule's explanation: the partition key and the events (ids and times) of each
 * completed sequence, per step its first and last event; and the same in words for notifications
 * (`userId=alice: login x3 (evt_1 .. evt_3) then login (evt_4) within 5 min`).
 */
import { eventIdOf } from '../../../event-id.ts';
import type {
  ExplainedPattern,
  ExplainedPatternEvent,
  ExplainedPatternMatch,
} from '../../alerts/alert.ts';
import type { PatternConfig } from './pattern-config.ts';
import type { PatternMatch } from './pattern-matcher.ts';

/** Sequences an explanation lists by name; the others are counted. */
export const EXPLAINED_MATCHES = 10;

const iso = (ms: number): string => new Date(ms).toISOString();
const eventAt = (id: number, at: number): ExplainedPatternEvent => ({
  eventId: eventIdOf(id),
  at: iso(at),
});

export function explainMatch(config: PatternConfig, match: PatternMatch): ExplainedPatternMatch {
  const t = match.trail;
  return {
    partitionKey: match.partitionKey,
    completedAt: iso(match.completedAt),
    steps: config.steps.map((step, i) => ({
      eventType: step.eventType,
      events: step.times.min,
      first: eventAt(t[4 * i] ?? 0, t[4 * i + 1] ?? 0),
      last: eventAt(t[4 * i + 2] ?? 0, t[4 * i + 3] ?? 0),
    })),
    absent:
      config.absent === undefined || match.deadline === undefined
        ? null
        : { eventType: config.absent.eventType, deadline: iso(match.deadline) },
  };
}

export function explainPattern(
  config: PatternConfig,
  matches: readonly PatternMatch[],
  matchCount: number,
): ExplainedPattern {
  return {
    pattern: 'PATTERN',
    partitionBy: config.partitionBy,
    withinMinutes: config.withinMinutes,
    result: matchCount > 0,
    matchCount,
    matches: matches.slice(0, EXPLAINED_MATCHES).map((m) => explainMatch(config, m)),
  };
}

/** One sequence in words. */
export function matchWords(
  partitionBy: string,
  match: ExplainedPatternMatch,
  withinMinutes: number,
): string {
  const steps = match.steps.map((s) =>
    s.events === 1
      ? `${s.eventType} (${s.first.eventId} at ${s.first.at})`
      : `${s.eventType} x${s.events} (${s.first.eventId} at ${s.first.at} .. ${s.last.eventId} at ${s.last.at})`,
  );
  const absent =
    match.absent === null
      ? ''
      : `, not followed by ${match.absent.eventType} by ${match.absent.deadline}`;
  return `${partitionBy}=${match.partitionKey}: ${steps.join(' then ')} within ${withinMinutes} min${absent}`;
}

/** The explanation in words: the listed sequences, and how many more completed. */
export function patternWords(tree: ExplainedPattern): string {
  const listed = tree.matches.map((m) => matchWords(tree.partitionBy, m, tree.withinMinutes));
  const more = tree.matchCount - tree.matches.length;
  if (more > 0) listed.push(`and ${more} more sequence${more === 1 ? '' : 's'}`);
  return listed.join('; ');
}
