// PATTERN partitions across a metrics checkpoint (issue 33): a matcher saved at any point of a
// random stream, carried through v8 as the checkpoint carries it and restored into a new matcher
// of the same config, finds the same sequences in the rest of the stream as one that never
// stopped; an `absent` rule keeps its pending deadlines; another config's partitions are not taken.
import { deserialize, serialize } from 'node:v8';
import t from 'tap';
import fc from 'fast-check';
import {
  PatternMatcher,
  type MatcherState,
  type PatternMatch,
} from '../../../../../src/domain/rules/kinds/pattern/pattern-matcher.ts';
import { detailedEvent as event } from './fixtures.ts';
import { patternConfig as config, stepArb, streamArb } from './arbitraries.ts';

/** Through v8, as the checkpoint's record carries it. */
const carried = (matcher: PatternMatcher): MatcherState =>
  deserialize(serialize(matcher.save())) as MatcherState;

t.test('restored at any point, the rest of a stream matches as if never stopped', async (t) => {
  fc.assert(
    fc.property(
      fc.array(stepArb, { minLength: 1, maxLength: 3 }),
      streamArb(['u1', 'u2', 'u3'], 20),
      fc.nat(),
      (steps, events, cutSeed) => {
        const cut = events.length === 0 ? 0 : cutSeed % (events.length + 1);
        const cfg = config(steps);
        const whole = new PatternMatcher(cfg);
        const before = new PatternMatcher(cfg);
        const expected: (PatternMatch | null)[] = [];
        events.forEach((e, i) => {
          const match = whole.observe(e);
          if (i < cut) before.observe(e);
          else expected.push(match);
        });
        const after = new PatternMatcher(cfg);
        after.restore(carried(before));
        const actual = events.slice(cut).map((e) => after.observe(e));
        if (JSON.stringify(actual) !== JSON.stringify(expected))
          throw new Error(`restored ${JSON.stringify(actual)} != ${JSON.stringify(expected)}`);
        if (after.size() !== whole.size()) throw new Error('partition counts differ');
      },
    ),
    { numRuns: 2000 },
  );
  t.pass('2000 random streams, cut anywhere, agree');
});

t.test('an absent rule keeps its pending deadline and its evictions', async (t) => {
  const cfg = config(
    [{ eventType: 'checkout', where: [], times: { min: 1 }, contiguity: 'relaxed' }],
    { absent: { eventType: 'paid', where: [], withinMinutes: 1 }, maxPartitions: 1 },
  );
  const before = new PatternMatcher(cfg);
  before.observe(event(1, 'bob', 'checkout', 500));
  before.observe(event(2, 'alice', 'checkout', 1000));
  t.equal(before.evicted, 1, 'bob evicted past maxPartitions 1');
  const after = new PatternMatcher(cfg);
  after.restore(carried(before));
  t.equal(after.evicted, 1);
  const out: PatternMatch[] = [];
  after.tick(61_000, out);
  t.same(out, [
    { partitionKey: 'alice', trail: [2, 1000, 2, 1000], completedAt: 1000, deadline: 61_000 },
  ]);
});

t.test("another config's partitions are not restored", async (t) => {
  const one = config([
    { eventType: 'a', where: [], times: { min: 1 }, contiguity: 'relaxed' },
    { eventType: 'b', where: [], times: { min: 1 }, contiguity: 'relaxed' },
  ]);
  const other = config([
    { eventType: 'a', where: [], times: { min: 3 }, contiguity: 'relaxed' },
    { eventType: 'b', where: [], times: { min: 1 }, contiguity: 'relaxed' },
  ]);
  const before = new PatternMatcher(one);
  before.observe(event(1, 'u1', 'a', 1000));
  const after = new PatternMatcher(other);
  after.restore(carried(before));
  t.equal(after.size(), 0, 'a partition of another layout is skipped');
});
