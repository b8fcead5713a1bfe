/**
 * Rule bodies for the rules bench: THRESHOLD rules, single and nested AND / OR / NOT, plus a few
 * RATE_CHANGE, over every spec 2.8 metric; thresholds keep most quiet, suppression keeps the rest rare.
 */
import { prng, sourceName, typeName } from './event-mix.ts';

export interface RuleMixOptions {
  /** Keys that the traffic uses, so indexed metrics read live counters. */
  readonly types: number;
  readonly sources: number;
  /** Share of rules whose condition holds under traffic (they fire once, then stay suppressed). */
  readonly firingShare: number;
}

interface Leaf {
  readonly metric: string;
  readonly operator: string;
  readonly threshold: number;
  readonly windowMinutes: number;
}

interface Node {
  readonly logicalOperator: 'AND' | 'OR' | 'NOT';
  readonly conditions: readonly (Leaf | Node)[];
  readonly windowMinutes?: number;
}

/** [metric, a threshold it never passes under bench traffic]; latencies are clamped to 1 h. */
const QUIET: readonly (readonly [string, number])[] = [
  ['totalEvents', 1e12],
  ['eventsPerSecond', 1e7],
  ['avgLatency', 3_600_000],
  ['errorRate', 99.9],
  ['uniqueUsers', 1e9],
  ['uniqueSources', 1e7],
  ['uniqueEventTypes', 1e7],
  ['latencyP50', 3_600_000],
  ['latencyP95', 3_600_000],
  ['latencyP99', 3_600_000],
  ['latencyMin', 3_600_000],
  ['latencyMax', 3_600_000],
  ['currentThroughput', 1e7],
  ['peakThroughput', 1e7],
  ['totalErrors', 1e12],
];
const SEVERITY_KEYS = ['INFO', 'WARNING', 'ERROR', 'CRITICAL'];
const RULE_SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];

export function ruleBodies(count: number, options: RuleMixOptions, seed = 0x7a1e): string[] {
  const random = prng(seed);
  const int = (n: number): number => Math.floor(random() * n);
  const window = (): number => 1 + int(60);

  /** A metric name, a third of them indexed. */
  const metric = (): [string, number] => {
    const roll = random();
    if (roll < 0.12) return [`eventsByType[${typeName(int(options.types))}]`, 1e12];
    if (roll < 0.22) return [`eventsBySource[${sourceName(int(options.sources))}]`, 1e12];
    if (roll < 0.3) return [`eventsBySeverity[${SEVERITY_KEYS[int(4)] as string}]`, 1e12];
    return [...(QUIET[int(QUIET.length)] as readonly [string, number])];
  };
  /** A comparison that is false under bench traffic (each metric is >= 0). */
  const quietLeaf = (): Leaf => {
    const [name, high] = metric();
    const roll = random();
    if (roll < 0.6)
      return { metric: name, operator: 'GREATER_THAN', threshold: high, windowMinutes: window() };
    if (roll < 0.8)
      return { metric: name, operator: 'LESS_THAN', threshold: -1, windowMinutes: window() };
    if (roll < 0.9)
      return {
        metric: name,
        operator: 'GREATER_THAN_OR_EQUAL',
        threshold: high,
        windowMinutes: window(),
      };
    return { metric: name, operator: 'EQUALS', threshold: -1, windowMinutes: window() };
  };
  /** A comparison that holds (every metric is >= 0), so AND and NOT must look further. */
  const trueLeaf = (): Leaf => ({
    metric: metric()[0],
    operator: 'GREATER_THAN_OR_EQUAL',
    threshold: 0,
    windowMinutes: window(),
  });

  /** A false condition; AND puts true leaves first and OR holds only false ones. */
  const quietTree = (depth: number): Leaf | Node => {
    if (depth === 0) return quietLeaf();
    const roll = random();
    const width = 2 + int(3);
    if (roll < 0.4) {
      const conditions = [
        ...Array.from({ length: width - 1 }, () =>
          random() < 0.7 ? trueLeaf() : trueTree(depth - 1),
        ),
        quietTree(depth - 1),
      ];
      return {
        logicalOperator: 'AND',
        conditions,
        ...(random() < 0.3 ? { windowMinutes: window() } : {}),
      };
    }
    if (roll < 0.8) {
      return {
        logicalOperator: 'OR',
        conditions: Array.from({ length: width }, () => quietTree(depth - 1)),
      };
    }
    return { logicalOperator: 'NOT', conditions: [trueTree(depth - 1)] };
  };
  /** A true condition, used inside quiet trees. */
  const trueTree = (depth: number): Leaf | Node =>
    depth === 0 || random() < 0.5
      ? trueLeaf()
      : { logicalOperator: 'NOT', conditions: [quietTree(depth - 1)] };

  return Array.from({ length: count }, (_, i) => {
    const firing = random() < options.firingShare;
    const shape = random();
    let ruleType = 'THRESHOLD';
    let ruleConfig: Leaf | Node;
    if (firing) {
      ruleConfig = {
        metric: 'totalEvents',
        operator: 'GREATER_THAN',
        threshold: 0,
        windowMinutes: window(),
      };
    } else if (shape < 0.4) {
      ruleConfig = quietLeaf();
    } else if (shape < 0.95) {
      ruleConfig = quietTree(1 + int(3));
    } else {
      ruleType = 'RATE_CHANGE';
      ruleConfig = { ...quietLeaf(), operator: 'GREATER_THAN', threshold: 1e9 };
    }
    return JSON.stringify({
      name: `bench rule ${i}`,
      description: firing ? 'fires once, then suppressed' : 'stays quiet',
      ruleType,
      ruleConfig,
      severity: RULE_SEVERITIES[int(4)],
      priority: int(201) - 100,
      notificationChannels: [],
      // Firing rules fire once in the run: a day's suppression, one alert an hour.
      suppressionWindowMinutes: firing ? 1440 : 5 + int(55),
      maxAlertsPerHour: firing ? 1 : 1 + int(10),
    });
  });
}
