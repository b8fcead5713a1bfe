/**
 * @module What the minutes that left the 24 h had counted, by key name, since start or reset: with
 * the 24 h's own totals it gives the counts since then, which only ever grow (Prometheus counters,
 * GET /metrics). Added once per minute that expires, never per event. Bounded as the 24 h is: at
 * most the cap of names per map, then `(other)`.
 */
import { SEVERITIES } from '../../event.ts';
import { OTHER_KEY } from '../metrics-limits.ts';
import type { KeyRegistry } from './key-registry.ts';
import type { MinuteBucket } from './minute-buckets.ts';

export class ExpiredCounts {
  events = 0;
  readonly severities = new Float64Array(SEVERITIES.length);
  readonly byType = new Map<string, number>();
  readonly bySource = new Map<string, number>();

  constructor(
    private readonly maxTypes: number,
    private readonly maxSources: number,
  ) {}

  /** A minute leaving the 24 h; its keys' names are still registered when this is called. */
  add(bucket: MinuteBucket, types: KeyRegistry, sources: KeyRegistry): void {
    this.events += bucket.events;
    for (let s = 0; s < SEVERITIES.length; s++) this.severities[s]! += bucket.severities[s]!;
    addByName(this.byType, bucket.byType, types, this.maxTypes);
    addByName(this.bySource, bucket.bySource, sources, this.maxSources);
  }
}

/**
 * Counts by id into counts by name; a name that finds the map full counts under `(other)`, unless
 * a rule watches it (those are bounded by the rule set).
 */
function addByName(
  into: Map<string, number>,
  counts: Uint32Array,
  registry: KeyRegistry,
  maxNames: number,
): void {
  for (let id = 0; id < counts.length; id++) {
    const count = counts[id]!;
    if (count === 0) continue;
    const name = registry.nameOf(id) ?? OTHER_KEY;
    const key = into.has(name) || into.size < maxNames || registry.isWatched(id) ? name : OTHER_KEY;
    into.set(key, (into.get(key) ?? 0) + count);
  }
}
