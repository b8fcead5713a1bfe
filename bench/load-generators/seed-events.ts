/**
 * The events `bench:events-query` seeds: 50 skewed types (type 0 the most frequent, as in real
 * traffic), timestamps spread uniformly over the last `days` (in order by batch), mostly INFO. A batch's events depend
 * only on its index, so the API and COPY seeding modes store the same events.
 */
import { prng } from './event-mix.ts';

const DOMAINS = 'page cart checkout user api search video email payment auth'.split(' ');
const ACTIONS = ['viewed', 'clicked', 'started', 'completed', 'failed'];
/** 50 event types, e.g. `page.viewed`; type 0 is the most frequent. */
export const SEED_TYPES = DOMAINS.flatMap((d) => ACTIONS.map((a) => `${d}.${a}`));
const SOURCES = 'web-frontend ios-app android-app checkout-service auth-service search-api'.split(
  ' ',
);
const REGIONS = ['eu-west-1', 'us-east-1', 'ap-south-1'];

const pick = <T>(items: readonly T[], r: number): T => items[Math.floor(r * items.length)] as T;

export interface SeedEvent {
  readonly eventType: string;
  /** ISO 8601, milliseconds. */
  readonly timestamp: string;
  readonly source: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly severity: 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';
  readonly tags: Readonly<Record<string, string>>;
  readonly metadata: Readonly<Record<string, string | number>>;
}

/**
 * Batch `index` of `batches` (`count` events): the batches split the `days` before `now` (epoch ms)
 * into consecutive slices, oldest first, and a batch's timestamps fall in its own slice. So the rows
 * are stored in about the order of their timestamps, as live ingest stores them; uniform times over
 * the whole span would scatter each hour over every page of the table and make a read along the
 * time index cost a random page per row, which no real table does.
 */
export function seedBatch(
  index: number,
  count: number,
  now: number,
  days: number,
  batches: number,
): SeedEvent[] {
  const random = prng(0x5eed + index);
  const slice = (days * 86_400_000) / batches;
  const start = now - (batches - index) * slice;
  return Array.from({ length: count }, () => {
    const severityRoll = random();
    return {
      eventType: SEED_TYPES[Math.floor(random() ** 2 * SEED_TYPES.length)] as string,
      timestamp: new Date(Math.floor(start + random() * slice)).toISOString(),
      source: pick(SOURCES, random()),
      userId: `user-${Math.floor(random() * 50_000)}`,
      sessionId: `sess-${Math.floor(random() * 2 ** 32).toString(16)}`,
      severity:
        severityRoll < 0.85
          ? 'INFO'
          : severityRoll < 0.95
            ? 'WARNING'
            : severityRoll < 0.99
              ? 'ERROR'
              : 'CRITICAL',
      tags: { region: pick(REGIONS, random()), env: 'production' },
      metadata: {
        path: `/p/${Math.floor(random() * 1000)}`,
        durationMs: Math.floor(random() * 2000),
      },
    };
  });
}
