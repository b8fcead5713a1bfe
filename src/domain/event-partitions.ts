/**
 * @module Retention of events (issue 23), the pure part: which partitions of `events` to create
 * ahead and which to drop, from the partitions that exist, the clock and EVENTS_RETENTION_DAYS.
 * Partitions are ranges of `ts` on UTC day boundaries, contiguous from MINVALUE (`events_before`)
 * to the newest one; the DEFAULT partition takes what lies past them (docs/decisions.md).
 */

export const DAY_MS = 86_400_000;

/** Daily partitions up to this retention, monthly ones up to the next; yearly past it, or keeping all. */
export const DAILY_RETENTION_MAX_DAYS = 92;
export const MONTHLY_RETENTION_MAX_DAYS = 1096;

/**
 * Partitions exist this far past now, so that the hours ahead of a day (or month) change and a few
 * failed runs never route today's events to the DEFAULT partition.
 */
export const AHEAD_MS = 2 * DAY_MS;

/** The partition from MINVALUE: events older than every other partition, recreated after a drop. */
export const BEFORE_PARTITION = 'events_before';

export type PartitionGrain = 'day' | 'month' | 'year';

/** A range partition: [lower, upper) in epoch ms; null lower is MINVALUE, null upper MAXVALUE. */
export interface RangePartition {
  readonly name: string;
  readonly lower: number | null;
  readonly upper: number | null;
}

/** A partition to create, its bounds day-aligned. */
export interface NewPartition {
  readonly name: string;
  readonly lower: number;
  readonly upper: number;
}

export interface PartitionPlan {
  /** In ascending order: each starts where the one before ends. */
  readonly create: readonly NewPartition[];
  /**
   * Partitions wholly older than the retention, to drop in one transaction; `keptFrom` is where
   * the partitions kept begin: the new upper bound of BEFORE_PARTITION, and the instant from
   * which events are kept (and counted, and paged).
   */
  readonly drop: { readonly names: readonly string[]; readonly keptFrom: number } | null;
}

/** What a maintenance run did: the partitions it created and those it dropped, by name. */
export interface MaintenanceDone {
  readonly created: readonly string[];
  readonly dropped: readonly string[];
}

export function grainFor(retentionDays: number | null): PartitionGrain {
  if (retentionDays === null || retentionDays > MONTHLY_RETENTION_MAX_DAYS) return 'year';
  return retentionDays <= DAILY_RETENTION_MAX_DAYS ? 'day' : 'month';
}

export const dayStart = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;

/** The first day (or first of a month, or of a year, UTC) after `ms`. */
export function nextBoundary(ms: number, grain: PartitionGrain): number {
  if (grain === 'day') return dayStart(ms) + DAY_MS;
  const d = new Date(ms);
  if (grain === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return Date.UTC(d.getUTCFullYear() + 1, 0, 1);
}

/** `events_p20261127` for a partition starting on 2026-11-27 (UTC). */
export function partitionName(lower: number): string {
  const iso = new Date(lower).toISOString();
  return `events_p${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}`;
}

/**
 * What to do at `now`. Ahead: partitions of the grain until past now + AHEAD_MS; a stretch before
 * today left without partitions (the service was stopped) becomes one partition, not one per day.
 * Retention: every partition whose upper bound is at or before the start of the UTC day
 * `retentionDays` before today's goes; BEFORE_PARTITION alone goes only when it holds rows
 * (`beforeHasRows`), or each run would drop and make it again for nothing.
 */
export function planPartitions(
  existing: readonly RangePartition[],
  now: number,
  retentionDays: number | null,
  beforeHasRows: boolean,
): PartitionPlan {
  const grain = grainFor(retentionDays);
  const today = dayStart(now);
  const uppers = existing.map((p) => p.upper).filter((u): u is number => u !== null);
  const unbounded = existing.some((p) => p.upper === null);
  const create: NewPartition[] = [];
  let end = uppers.length === 0 ? today : Math.max(...uppers);
  if (!unbounded) {
    if (end < today) {
      create.push({ name: partitionName(end), lower: end, upper: today });
      end = today;
    }
    while (end <= now + AHEAD_MS) {
      const next = nextBoundary(end, grain);
      create.push({ name: partitionName(end), lower: end, upper: next });
      end = next;
    }
  }
  if (retentionDays === null) return { create, drop: null };
  const limit = today - retentionDays * DAY_MS;
  const expired = existing.filter((p) => p.upper !== null && p.upper <= limit);
  const onlyEmptyBefore =
    expired.length === 1 && expired[0]?.name === BEFORE_PARTITION && !beforeHasRows;
  if (expired.length === 0 || onlyEmptyBefore) return { create, drop: null };
  const kept = [...existing.filter((p) => !expired.includes(p)), ...create];
  const lowers = kept.map((p) => p.lower).filter((l): l is number => l !== null);
  // Every kept partition has an upper bound past the limit, so the lowest starts at or before it.
  const keptFrom = lowers.length === 0 ? limit : Math.min(...lowers);
  return { create, drop: { names: expired.map((p) => p.name), keptFrom } };
}
