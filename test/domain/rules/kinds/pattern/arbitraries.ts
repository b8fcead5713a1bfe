/**
 * @module Random PATTERN rules and event streams (fast-check) for the matcher's property tests:
 * steps over three event types with an optional metadata condition, counted and strict, and
 * streams of a few users' events at random gaps within a third of the window.
 */
import fc from 'fast-check';
import type { DetailedMetricEvent } from '../../../../../src/domain/event.ts';
import type {
  PatternConfig,
  PatternStep,
} from '../../../../../src/domain/rules/kinds/pattern/pattern-config.ts';
import { detailedEvent } from './fixtures.ts';

/** The window of every random rule. */
export const WITHIN_MS = 60_000;

export const patternConfig = (
  steps: PatternStep[],
  extra: Partial<PatternConfig> = {},
): PatternConfig => ({
  partitionBy: 'userId',
  withinMinutes: WITHIN_MS / 60_000,
  steps,
  maxPartitions: 1000,
  ...extra,
});

export const stepArb: fc.Arbitrary<PatternStep> = fc.record({
  eventType: fc.constantFrom('a', 'b', 'c'),
  where: fc.oneof(
    fc.constant([]),
    fc
      .constantFrom(0, 1)
      .map((v) => [{ field: 'metadata.v', operator: 'EQUALS' as const, value: v }]),
  ),
  times: fc.integer({ min: 1, max: 3 }).map((min) => ({ min })),
  contiguity: fc.constantFrom('relaxed' as const, 'strict' as const),
});

/** Streams of `users`' events, at most `maxLength`, ids from 1, times growing from 1,000,000. */
export const streamArb = (
  users: readonly string[],
  maxLength: number,
): fc.Arbitrary<DetailedMetricEvent[]> =>
  fc
    .array(
      fc.record({
        user: fc.constantFrom(...users),
        type: fc.constantFrom('a', 'b', 'c'),
        v: fc.constantFrom(0, 1),
        gap: fc.integer({ min: 0, max: WITHIN_MS / 3 }),
      }),
      { maxLength },
    )
    .map((raw) => {
      let at = 1_000_000;
      return raw.map((r, i) => {
        at += r.gap;
        return detailedEvent(i + 1, r.user, r.type, at, { v: r.v });
      });
    });
