// The PATTERN matcher against a brute-force reference on random event streams: the same
// sequences complete, at the same events, for the same keys; plus absence, sweeps and eviction.
import t from 'tap';
import fc from 'fast-check';
import type { DetailedMetricEvent } from '../../../../../src/domain/event.ts';
import { detailedEvent } from './fixtures.ts';
import { stepArb, streamArb } from './arbitraries.ts';
import type {
  PatternConfig,
  PatternStep,
} from '../../../../../src/domain/rules/kinds/pattern/pattern-config.ts';
import { PatternMatcher } from '../../../../../src/domain/rules/kinds/pattern/pattern-matcher.ts';

const WITHIN_MS = 60_000;

const event = detailedEvent;

const config = (steps: PatternStep[], extra: Partial<PatternConfig> = {}): PatternConfig => ({
  partitionBy: 'userId',
  withinMinutes: WITHIN_MS / 60_000,
  steps,
  maxPartitions: 1000,
  ...extra,
});

const stepMatches = (step: PatternStep, e: DetailedMetricEvent): boolean =>
  e.eventType === step.eventType &&
  step.where.every((c) => (e.metadata as Record<string, unknown>)[c.field.slice(9)] === c.value);

/**
 * Is there an assignment of events[0..last] to the steps that uses events[last] as the last
 * step's last event, in order, with strict steps contiguous, within the window?
 */
function completesAt(
  steps: readonly PatternStep[],
  events: readonly DetailedMetricEvent[],
): boolean {
  const last = events.length - 1;
  const lastEvent = events[last];
  if (lastEvent === undefined) return false;
  // place(i, k, from, first): put the k-th event of step i at an index >= from (or exactly `from`
  // when contiguity demands); `first` is the index of the sequence's first event.
  const place = (i: number, k: number, from: number, exact: boolean, first: number): boolean => {
    const step = steps[i] as PatternStep;
    const lo = from;
    const hi = exact ? from : last;
    for (let x = lo; x <= hi && x <= last; x++) {
      const e = events[x] as DetailedMetricEvent;
      if (!stepMatches(step, e)) continue;
      const start = i === 0 && k === 0 ? x : first;
      if (lastEvent.receivedAt - (events[start] as DetailedMetricEvent).receivedAt > WITHIN_MS)
        continue;
      const strict = step.contiguity === 'strict';
      if (k + 1 < step.times.min) {
        if (place(i, k + 1, x + 1, strict, start)) return true;
        continue;
      }
      if (i + 1 === steps.length) {
        if (x === last) return true;
        continue;
      }
      const next = steps[i + 1] as PatternStep;
      if (place(i + 1, 0, x + 1, next.contiguity === 'strict', start)) return true;
    }
    return false;
  };
  return place(0, 0, 0, false, 0);
}

/** The reference: per key, after each match only later events count (the state is cleared). */
function reference(cfg: PatternConfig, events: readonly DetailedMetricEvent[]): number[] {
  const since = new Map<string, DetailedMetricEvent[]>();
  const out: number[] = [];
  for (const e of events) {
    const key = e.userId as string;
    const list = since.get(key) ?? [];
    list.push(e);
    since.set(key, list);
    if (completesAt(cfg.steps, list)) {
      out.push(e.id);
      since.set(key, []);
    }
  }
  return out;
}

function matcherIds(cfg: PatternConfig, events: readonly DetailedMetricEvent[]): number[] {
  const matcher = new PatternMatcher(cfg);
  const out: number[] = [];
  for (const e of events) {
    const match = matcher.observe(e);
    if (match === null) continue;
    if (match.partitionKey !== e.userId) throw new Error(`match for ${match.partitionKey}`);
    out.push(e.id);
  }
  return out;
}

t.test('same matches as the brute-force reference on random streams', async (t) => {
  fc.assert(
    fc.property(
      fc.array(stepArb, { minLength: 1, maxLength: 3 }),
      streamArb(['u1', 'u2'], 16),
      (steps, events) => {
        const cfg = config(steps);
        const expected = reference(cfg, events);
        const actual = matcherIds(cfg, events);
        if (JSON.stringify(actual) !== JSON.stringify(expected))
          throw new Error(
            `matcher ${JSON.stringify(actual)} != reference ${JSON.stringify(expected)}`,
          );
      },
    ),
    { numRuns: 3000 },
  );
  t.pass('3000 random streams agree');
});

const login = config(
  [
    {
      eventType: 'login',
      where: [{ field: 'metadata.success', operator: 'EQUALS', value: false }],
      times: { min: 3 },
      contiguity: 'relaxed',
    },
    {
      eventType: 'login',
      where: [{ field: 'metadata.success', operator: 'EQUALS', value: true }],
      times: { min: 1 },
      contiguity: 'relaxed',
    },
  ],
  { withinMinutes: 5 },
);

t.test('3 failed logins then a success: one match, its events in the trail', async (t) => {
  const m = new PatternMatcher(login);
  const fail = (id: number, at: number) => event(id, 'alice', 'login', at, { success: false });
  t.equal(m.observe(fail(1, 1000)), null);
  t.equal(m.observe(fail(2, 2000)), null);
  t.equal(m.observe(event(3, 'bob', 'page', 2500)), null);
  t.equal(m.observe(fail(4, 3000)), null);
  const match = m.observe(event(5, 'alice', 'login', 4000, { success: true }));
  t.same(match, {
    partitionKey: 'alice',
    trail: [1, 1000, 4, 3000, 5, 4000, 5, 4000],
    completedAt: 4000,
  });
  // Cleared on match: a second success alone completes nothing.
  t.equal(m.observe(event(6, 'alice', 'login', 5000, { success: true })), null);
});

t.test('a sequence longer than the window does not match', async (t) => {
  const m = new PatternMatcher(login);
  const fail = (id: number, at: number) => event(id, 'alice', 'login', at, { success: false });
  m.observe(fail(1, 0));
  m.observe(fail(2, 1000));
  m.observe(fail(3, 2000));
  t.equal(m.observe(event(4, 'alice', 'login', 5 * 60_000 + 1, { success: true })), null);
});

t.test('absent: fires at the deadline unless the awaited event came', async (t) => {
  const cfg = config(
    [{ eventType: 'checkout', where: [], times: { min: 1 }, contiguity: 'relaxed' }],
    { absent: { eventType: 'paid', where: [], withinMinutes: 1 } },
  );
  const m = new PatternMatcher(cfg);
  t.equal(m.observe(event(1, 'alice', 'checkout', 1000)), null);
  t.equal(m.observe(event(2, 'bob', 'checkout', 2000)), null);
  t.equal(m.observe(event(3, 'bob', 'paid', 30_000)), null);
  const out: Parameters<PatternMatcher['tick']>[1] = [];
  m.tick(60_999, out);
  t.same(out, [], 'not before the deadline');
  m.tick(61_000, out);
  t.same(out, [
    { partitionKey: 'alice', trail: [1, 1000, 1, 1000], completedAt: 1000, deadline: 61_000 },
  ]);
  m.tick(120_000, out);
  t.equal(out.length, 1, "bob's checkout was followed by paid: never fires");
});

t.test('idle partitions are swept; past maxPartitions the least recent is evicted', async (t) => {
  const cfg = config(
    [
      { eventType: 'a', where: [], times: { min: 1 }, contiguity: 'relaxed' },
      { eventType: 'b', where: [], times: { min: 1 }, contiguity: 'relaxed' },
    ],
    { maxPartitions: 2 },
  );
  const m = new PatternMatcher(cfg);
  m.observe(event(1, 'u1', 'a', 0));
  m.observe(event(2, 'u2', 'a', 10));
  m.observe(event(3, 'u1', 'a', 20)); // u1 is now the most recent
  m.observe(event(4, 'u3', 'a', 30));
  t.equal(m.size(), 2);
  t.equal(m.evicted, 1);
  t.equal(m.observe(event(5, 'u2', 'b', 40)), null, 'u2 was evicted');
  t.not(m.observe(event(6, 'u1', 'b', 50)), null, 'u1 was kept');
  t.equal(m.observe(event(7, 'u9', 'b', 60)), null, 'a second step alone holds no state');
  t.equal(m.size(), 1);
  m.tick(30 + WITHIN_MS + 1, []);
  t.equal(m.size(), 0, 'swept once idle past the window');
});
