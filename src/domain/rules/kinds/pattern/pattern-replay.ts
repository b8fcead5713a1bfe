/**
 * @module The rule test of a PATTERN rule: the stored events of the last hour replayed through
 * the live matcher (in a storage worker, off the front thread and the evaluator), and what it
 * says merged into the test result: the sequences that would have completed, the last one
 * explained, and how many partitions the rule would have held (its memory).
 */
import type { DetailedMetricEvent } from '../../../event.ts';
import type { ExplainedPatternMatch } from '../../alerts/alert.ts';
import type { RuleTestResult } from '../../rule-test.ts';
import type { PatternConfig } from './pattern-config.ts';
import { explainMatch, explainPattern, matchWords } from './pattern-explanation.ts';
import { PatternMatcher, type PatternMatch } from './pattern-matcher.ts';

/** The replay's span: the recommendation speaks of the last hour. */
export const REPLAY_MINUTES = 60;
/** Events replayed at most (the oldest of the hour first); beyond, the replay says it stopped. */
export const REPLAY_MAX_EVENTS = 200_000;

/** What replaying the last hour found. */
export interface PatternReplay {
  readonly from: number;
  readonly until: number;
  readonly events: number;
  /** REPLAY_MAX_EVENTS were read before the hour ended. */
  readonly truncated: boolean;
  readonly matches: number;
  readonly peakPartitions: number;
  readonly partitionsEvicted: number;
  readonly lastMatch: ExplainedPatternMatch | null;
}

/** Feeds a matcher events in commit order, sweeping once per second of event time, as live. */
export class PatternReplayer {
  private readonly matcher: PatternMatcher;
  private readonly fired: PatternMatch[] = [];
  private events = 0;
  private matches = 0;
  private peak = 0;
  private nextTick = Number.NEGATIVE_INFINITY;
  private last: PatternMatch | null = null;

  constructor(private readonly config: PatternConfig) {
    this.matcher = new PatternMatcher(config);
  }

  /** Whether events of this type can matter (a strict rule reads every event). */
  reads(): readonly string[] | null {
    return this.matcher.readsAllEvents ? null : [...this.matcher.eventTypes];
  }

  observe(event: DetailedMetricEvent): void {
    this.events++;
    if (event.receivedAt >= this.nextTick) this.tick(event.receivedAt);
    const match = this.matcher.observe(event);
    if (match !== null) this.found(match);
    if (this.matcher.size() > this.peak) this.peak = this.matcher.size();
  }

  private tick(now: number): void {
    this.matcher.tick(now, this.fired);
    for (const match of this.fired) this.found(match);
    this.fired.length = 0;
    this.nextTick = now + 1000;
  }

  private found(match: PatternMatch): void {
    this.matches++;
    this.last = match;
  }

  finish(from: number, until: number, truncated: boolean): PatternReplay {
    this.tick(until);
    return {
      from,
      until,
      events: this.events,
      truncated,
      matches: this.matches,
      peakPartitions: this.peak,
      partitionsEvicted: this.matcher.evicted,
      lastMatch: this.last === null ? null : explainMatch(this.config, this.last),
    };
  }
}

const sentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);

/** The test result with the replay's simulation, message and recommendation. */
export function withPatternReplay(
  result: RuleTestResult,
  config: PatternConfig,
  replay: PatternReplay,
): RuleTestResult {
  const explanation = explainPattern(config, [], replay.matches);
  const matches = replay.lastMatch === null ? [] : [replay.lastMatch];
  const said =
    replay.matches === 0
      ? `Over the last ${REPLAY_MINUTES} minutes (${replay.events} events replayed) no sequence would have completed`
      : `Over the last ${REPLAY_MINUTES} minutes (${replay.events} events replayed) ${replay.matches} sequence${replay.matches === 1 ? '' : 's'} would have completed, the last: ${matchWords(config.partitionBy, replay.lastMatch as ExplainedPatternMatch, config.withinMinutes)}`;
  const cut = replay.truncated
    ? ` The replay stopped after ${REPLAY_MAX_EVENTS} events: the hour holds more.`
    : '';
  const share = replay.peakPartitions / config.maxPartitions;
  const partitions =
    replay.partitionsEvicted > 0
      ? `The last hour would have held more than maxPartitions (${config.maxPartitions}) partitions: ${replay.partitionsEvicted} were evicted, and a sequence of an evicted key is lost; raise maxPartitions or shorten withinMinutes`
      : `The last hour would have held at most ${replay.peakPartitions} partitions at once (${(share * 100).toFixed(1)}% of maxPartitions ${config.maxPartitions})`;
  return {
    ...result,
    message: `${result.message} ${sentence(said)}${cut}`,
    simulationResult: {
      wouldTrigger: replay.matches > 0,
      matchedConditions: matches.map((m) =>
        matchWords(config.partitionBy, m, config.withinMinutes),
      ),
      currentValues: {
        matches: replay.matches,
        peakPartitions: replay.peakPartitions,
        eventsReplayed: replay.events,
      },
      explanation: { ...explanation, matches },
    },
    recommendations: [...result.recommendations, partitions],
  };
}
