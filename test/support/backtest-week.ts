/**
 * @module A seeded week for the backtest tests: events written straight into PostgreSQL with past
 * receipt times (one INFO a minute, and three ten-minute bursts of ERRORs), and the same events
 * replayed by a live evaluator (Aggregator + RuleEngine) on an injected clock, ticking every
 * second as the metrics actor does, with no shortcut: what the backtest must agree with.
 */
import type postgres from 'postgres';
import { insertEvents } from '../../src/db/events-repository.ts';
import type { NewEvent } from '../../src/domain/event.ts';
import { Aggregator } from '../../src/domain/metrics/aggregator.ts';
import { RuleEngine } from '../../src/domain/rules/rule-engine.ts';
import { NO_ALERT_HISTORY, type ActiveRule, type RuleRecord } from '../../src/domain/rules/rule.ts';

export const MINUTE = 60_000;
export const DAY = 86_400_000;

/** Minutes after the week's start at which a burst begins. */
export const BURSTS = [1 * 1440 + 600, 3 * 1440 + 180, 5 * 1440 + 1080];

const event = (receivedAt: number, severity: 'INFO' | 'ERROR'): NewEvent => ({
  eventType: severity === 'ERROR' ? 'payment.failed' : 'page.view',
  source: 'web',
  timestamp: receivedAt,
  receivedAt,
  userId: null,
  sessionId: null,
  severity,
  tags: {},
  metadata: {},
});

/** The week's events from `start` (a whole minute), in receipt order. */
export function weekOfEvents(start: number): NewEvent[] {
  const events: NewEvent[] = [];
  for (let m = 0; m < 7 * 1440; m++) {
    const minute = start + m * MINUTE;
    events.push(event(minute + 30_000, 'INFO'));
    if (BURSTS.some((b) => m >= b && m < b + 10))
      for (let s = 5; s < 60; s += 10) events.push(event(minute + s * 1000, 'ERROR'));
  }
  return events.sort((a, b) => a.receivedAt - b.receivedAt);
}

export async function seedEvents(sql: postgres.Sql, events: readonly NewEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 2000) {
    const chunk = events.slice(i, i + 2000);
    await insertEvents(sql, chunk, (chunk.at(-1) as NewEvent).receivedAt);
  }
}

export interface LiveTransition {
  readonly transition: 'FIRING' | 'RESOLVED';
  readonly at: string;
  readonly values: Record<string, number> | null;
}

const activeOf = (rule: RuleRecord): ActiveRule => ({
  ...rule,
  ...NO_ALERT_HISTORY,
});

/**
 * The transitions of `rule` over [from, to): events recorded before the first tick at or after
 * their receipt, a tick every `stepMs`, every tick computed from the metrics afresh.
 */
export function liveTransitions(
  rule: RuleRecord,
  events: readonly NewEvent[],
  from: number,
  to: number,
  stepMs = 1000,
): LiveTransition[] {
  let clock = from - DAY;
  const aggregator = new Aggregator({ now: () => clock });
  const engine = new RuleEngine();
  engine.setRules([activeOf(rule)], from);
  const out: LiveTransition[] = [];
  let i = 0;
  for (let at = from; at < to; at += stepMs) {
    const batch: NewEvent[] = [];
    while (i < events.length && (events[i] as NewEvent).receivedAt <= at) {
      batch.push(events[i] as NewEvent);
      i++;
    }
    clock = at;
    aggregator.record(batch.map((e) => ({ ...e, latencyMs: 0 })));
    const resolved: Parameters<RuleEngine['tick']>[2] = [];
    const fired = engine.tick(aggregator, at, resolved);
    for (const r of resolved)
      out.push({
        transition: 'RESOLVED',
        at: new Date(r.resolvedAt).toISOString(),
        values: r.valuesAtResolve,
      });
    for (const f of fired)
      out.push({
        transition: 'FIRING',
        at: new Date(f.triggeredAt).toISOString(),
        values: f.currentValues,
      });
  }
  return out;
}
