/**
 * `node --import tsx bench/checkpoint-size.ts`: the size of a metrics checkpoint (issue 33) and
 * the actor thread's time to take and encode it, for a full 24 h: every minute of the day with
 * events of CHECKPOINT_TYPES types (each type in each minute), CHECKPOINT_USERS distinct users,
 * METRICS_MAX_TRACKED_USERS = the users. Prints one table (docs/metrics.md "Restarts").
 */
import { Aggregator } from '../src/domain/metrics/aggregator.ts';
import { aggregatorToPlain } from '../src/domain/metrics/checkpoint/aggregator-checkpoint.ts';
import { CountedEvents, MARK_OVERLAP_MS } from '../src/domain/metrics/checkpoint/counted-mark.ts';
import { encodeCheckpoint } from '../src/domain/metrics/checkpoint/metrics-checkpoint.ts';
import type { MetricEvent } from '../src/domain/event.ts';
import { intKnob } from './harness/knobs.ts';

const TYPES = intKnob('CHECKPOINT_TYPES', 10_000);
const USERS = intKnob('CHECKPOINT_USERS', 1_000_000);
/** Events per second over the mark's overlap: their ids ride in the checkpoint. */
const RATE = intKnob('CHECKPOINT_RATE', 5000);
const MINUTE = 60_000;
const DAY_MINUTES = 1440;

const start = Date.UTC(2026, 10, 22, 0, 0, 0);
let now = start;
const aggregator = new Aggregator({
  now: () => now,
  maxEventTypes: TYPES,
  maxSources: 1000,
  maxTrackedUsers: USERS,
});
let user = 0;
for (let minute = 0; minute < DAY_MINUTES; minute++) {
  now = start + minute * MINUTE + MINUTE - 1;
  const perMinute = Math.max(TYPES, Math.ceil(USERS / DAY_MINUTES));
  const batch: MetricEvent[] = [];
  for (let i = 0; i < perMinute; i++) {
    batch.push({
      eventType: `type-${i % TYPES}`,
      source: `source-${i % 100}`,
      userId: `user-${user++ % USERS}`,
      severity: i % 20 === 0 ? 'ERROR' : 'INFO',
      receivedAt: start + minute * MINUTE + (i % MINUTE),
      latencyMs: (i * 7) % 900,
    });
  }
  aggregator.record(batch);
}
const counted = new CountedEvents(start);
const overlapEvents = (RATE * MARK_OVERLAP_MS) / 1000;
for (let i = 0; i < overlapEvents; i++) counted.add(1e9 + i, now - (i % MARK_OVERLAP_MS));

const runs: { ms: number; bytes: number }[] = [];
for (let run = 0; run < 3; run++) {
  const t0 = performance.now();
  const body = encodeCheckpoint({
    takenAt: now,
    limits: aggregator.limits,
    mark: counted.mark(),
    aggregator: aggregatorToPlain(aggregator),
    rules: null,
  });
  runs.push({ ms: performance.now() - t0, bytes: body.length });
}
const best = runs.reduce((a, b) => (b.ms < a.ms ? b : a));
const heap = process.memoryUsage().heapUsed;
process.stdout.write(
  `| types | users | overlap ids | checkpoint | take + encode (best of 3) | heap in use |\n` +
    `| ----- | ----- | ----------- | ---------- | ------------------------- | ----------- |\n` +
    `| ${TYPES} | ${USERS} | ${overlapEvents} | ${(best.bytes / 2 ** 20).toFixed(1)} MiB | ` +
    `${best.ms.toFixed(0)} ms | ${(heap / 2 ** 20).toFixed(0)} MiB |\n`,
);
