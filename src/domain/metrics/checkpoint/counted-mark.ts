/**
 * @module The high-water mark of a metrics checkpoint: which committed events its state counted.
 *
 * Why not "the highest event id counted": ids come from a sequence taken at INSERT, and commits
 * finish in another order (two storage workers, group commit). An id below the highest one seen
 * may commit a moment later, and a restart that replayed `id > mark` would miss it for good. A
 * per-commit sequence would need a counter taken inside each commit, serialising every storage
 * worker on one row. Instead the mark is (receivedAt, id) with a safety overlap:
 *
 * - `from` = the newest receivedAt counted minus MARK_OVERLAP_MS (never before the state's start
 *   or reset): the events of receivedAt >= `from` are replayed from the store on restore;
 * - `ids` = the ids of the events counted with receivedAt >= `from`: replayed events among them
 *   are skipped (idempotent de-duplication of the overlap).
 *
 * Exact as long as an event commits (and reaches the actor) within MARK_OVERLAP_MS of its
 * receivedAt. A storage operation fails after DB_QUERY_TIMEOUT_MS (5 s by default), its events
 * answered 500, so with the default timeout a minute's overlap holds with a wide margin; a
 * timeout raised near a minute would need a longer overlap (docs/decisions.md).
 */

/** How far before the newest counted receivedAt a restore replays (see above). */
export const MARK_OVERLAP_MS = 60_000;

/**
 * In a cluster, while the view is incomplete (a peer's batches are late: the broker is down, or
 * its outbox waits), its events may reach the actor long after their receipt, and the mark's
 * `from` stays where it was when the view went incomplete, so that a restore replays them from
 * the store. For at most this long: the ids kept meanwhile cost memory (16 bytes an event, about
 * 48 MB at 5,000 events/s); an outage longer than this, spanning a restart, can miss a peer's
 * events received before it (docs/cluster.md).
 */
export const MARK_HOLD_MAX_MS = 10 * 60_000;

export interface CountedMark {
  /** Epoch ms: events received from here on are replayed (those in `ranges` skipped). */
  readonly from: number;
  /**
   * The ids of the events counted with receivedAt >= from, as sorted disjoint [first, last]
   * pairs: ids come from one sequence, so a minute of them is a few runs, not a list (at 20,000
   * events/s a list was 9 MiB per checkpoint, written to PostgreSQL every 10 s).
   */
  readonly ranges: Float64Array;
}

/** Every id of `mark`, ascending. */
export function* idsOf(mark: CountedMark): Generator<number> {
  for (let i = 0; i + 1 < mark.ranges.length; i += 2) {
    for (let id = mark.ranges[i]!; id <= mark.ranges[i + 1]!; id++) yield id;
  }
}

/** Whether `mark` holds `id` (a binary search of its ranges). */
export function markHas(mark: CountedMark, id: number): boolean {
  // Live events' ids are newer than any the mark holds: one comparison for them.
  if (mark.ranges.length === 0 || id > mark.ranges[mark.ranges.length - 1]!) return false;
  let lo = 0;
  let hi = mark.ranges.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (mark.ranges[2 * mid + 1]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < mark.ranges.length / 2 && mark.ranges[2 * lo]! <= id;
}

function rangesOf(ids: Float64Array): Float64Array {
  ids.sort();
  const ranges: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const last = ranges.length - 1;
    if (last > 0 && id <= ranges[last]! + 1) ranges[last] = Math.max(ranges[last]!, id);
    else ranges.push(id, id);
  }
  return Float64Array.from(ranges);
}

/** Records, per counted event, its id and receivedAt; pruned when a mark is taken. */
export class CountedEvents {
  private ids = new Float64Array(1024);
  private at = new Float64Array(1024);
  private size = 0;
  private newest = Number.NEGATIVE_INFINITY;
  /** While a cluster view is incomplete: the `from` of when it became so (MARK_HOLD_MAX_MS). */
  private heldFrom: number | null = null;

  /** `since`: the start or reset of the state these events are counted in. */
  constructor(private since: number) {}

  /** Hot path: the stored id of a counted event and its receivedAt. */
  add(id: number, receivedAt: number): void {
    // Pruned before growing: without timed checkpoints the arrays hold the overlap's events only.
    if (this.size === this.ids.length && this.prune() > this.ids.length / 2) this.grow();
    this.ids[this.size] = id;
    this.at[this.size] = receivedAt;
    this.size++;
    if (receivedAt > this.newest) this.newest = receivedAt;
  }

  /** A reset: nothing counted any more, and nothing before `since` is to be replayed. */
  reset(since: number): void {
    this.since = since;
    this.size = 0;
    this.newest = Number.NEGATIVE_INFINITY;
  }

  /** The mark of what is counted now; forgets the events before its `from`. */
  mark(): CountedMark {
    this.prune();
    return { from: this.from(), ranges: rangesOf(this.ids.slice(0, this.size)) };
  }

  /** The cluster view's completeness: an incomplete one holds the mark's `from` back. */
  viewComplete(complete: boolean): void {
    if (complete) this.heldFrom = null;
    else this.heldFrom ??= this.from();
  }

  private from(): number {
    let newest = this.newest - MARK_OVERLAP_MS;
    if (this.heldFrom !== null)
      newest = Math.min(newest, Math.max(this.heldFrom, this.newest - MARK_HOLD_MAX_MS));
    const from = Math.max(this.since, newest);
    return Number.isFinite(from) ? from : this.since;
  }

  /** Forgets the events before the mark's `from`; answers how many are kept. */
  private prune(): number {
    const from = this.from();
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      if (!(this.at[i]! >= from)) continue;
      this.ids[kept] = this.ids[i]!;
      this.at[kept] = this.at[i]!;
      kept++;
    }
    this.size = kept;
    return kept;
  }

  /** After a restore: what the checkpoint counted is counted (its `from` and ids). */
  restore(mark: CountedMark, since: number): void {
    this.since = since;
    this.size = 0;
    // Its ids' receivedAt are not kept: each stands at the latest it can be (`from` + the
    // overlap, the newest counted then), so no later mark drops an id whose event a replay from
    // that mark's `from` would read again. Kept longer than needed costs a few ranges, no more.
    for (const id of idsOf(mark)) this.add(id, mark.from + MARK_OVERLAP_MS);
    // The newest it had counted was `from` + the overlap (or less, when `from` is the state's
    // start): the next mark starts no later than this one did until newer events come.
    this.newest = mark.from + MARK_OVERLAP_MS;
  }

  private grow(): void {
    const ids = new Float64Array(this.ids.length * 2);
    const at = new Float64Array(this.ids.length * 2);
    ids.set(this.ids);
    at.set(this.at);
    this.ids = ids;
    this.at = at;
  }
}
