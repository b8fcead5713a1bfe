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
