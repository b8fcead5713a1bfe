/**
 * @module Test fixtures for the metrics aggregator: a hand-driven clock, an event builder, and a
 * check that a snapshot holds only finite numbers.
 */
import type { MetricEvent } from '../../../src/domain/event.ts';
import { Aggregator, type AggregatorOptions } from '../../../src/domain/metrics/aggregator.ts';

/** 2026-11-22T10:00:00.000Z: minute- and hour-aligned. */
export const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);
export const SECOND = 1000;
export const MINUTE = 60_000;
export const HOUR = 3_600_000;

export interface TestClock {
  now: () => number;
  set(epochMs: number): void;
}

export function testClock(start = T0): TestClock {
  let current = start;
  return {
    now: () => current,
    set: (epochMs) => {
      current = epochMs;
    },
  };
}

export function newAggregator(
  options: Omit<AggregatorOptions, 'now'> = {},
  start = T0,
): { aggregator: Aggregator; clock: TestClock } {
  const clock = testClock(start);
  return { aggregator: new Aggregator({ ...options, now: clock.now }), clock };
}

export function event(receivedAt: number, fields: Partial<MetricEvent> = {}): MetricEvent {
  return {
    eventType: 'page.view',
    source: 'web',
    userId: null,
    severity: 'INFO',
    latencyMs: 10,
    ...fields,
    receivedAt,
  };
}

/** `count` copies of event(receivedAt, fields). */
export const events = (
  count: number,
  receivedAt: number,
  fields: Partial<MetricEvent> = {},
): MetricEvent[] => Array.from({ length: count }, () => event(receivedAt, fields));

/** Paths of every value in `value` that is not a finite number, string, boolean, array or object. */
export function nonFinite(value: unknown, path = '$'): string[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [path];
  if (typeof value === 'string' || typeof value === 'boolean') return [];
  if (value === null || value === undefined) return [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => nonFinite(item, `${path}[${i}]`));
  if (typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => nonFinite(item, `${path}.${key}`));
  }
  return [path];
}

/**
 * Ten minutes of events from T0 (10:00:00), minutes with events 0, 3, 7 and 10:
 *   10:00:05  2 x a/s1 INFO 10 ms (u1)
 *   10:03:07  3 x b/s2 ERROR 30 ms (u2, u3, u3)
 *   10:07:01  4 x a/s1 ERROR 100 (u1), ERROR 200 (u4), INFO 50, INFO 250
 *   10:10:10  c/s1 CRITICAL 40 ms (u5);  10:10:27  c/s2 INFO 60 ms
 */
export function tenMinuteScenario(): MetricEvent[] {
  const at = (minute: number, second: number): number => T0 + minute * MINUTE + second * SECOND;
  return [
    event(at(0, 5), { eventType: 'a', source: 's1', latencyMs: 10, userId: 'u1' }),
    event(at(0, 5), { eventType: 'a', source: 's1', latencyMs: 10, userId: 'u1' }),
    ...['u2', 'u3', 'u3'].map((userId) =>
      event(at(3, 7), { eventType: 'b', source: 's2', severity: 'ERROR', latencyMs: 30, userId }),
    ),
    event(at(7, 1), {
      eventType: 'a',
      source: 's1',
      severity: 'ERROR',
      latencyMs: 100,
      userId: 'u1',
    }),
    event(at(7, 1), {
      eventType: 'a',
      source: 's1',
      severity: 'ERROR',
      latencyMs: 200,
      userId: 'u4',
    }),
    event(at(7, 1), { eventType: 'a', source: 's1', latencyMs: 50 }),
    event(at(7, 1), { eventType: 'a', source: 's1', latencyMs: 250 }),
    event(at(10, 10), {
      eventType: 'c',
      source: 's1',
      severity: 'CRITICAL',
      latencyMs: 40,
      userId: 'u5',
    }),
    event(at(10, 27), { eventType: 'c', source: 's2', latencyMs: 60 }),
  ];
}
