/**
 * @module Dense ids for the keys of one map (event types or sources), capped: past `maxKeys` named
 * keys a new key gets the id of `(other)`. Ids of keys that left the 24 h are released and reused.
 * Keys that rules watch (watch()) are outside the cap: they always get an id of their own and take
 * no place under it, so no flood of other keys can fold them into `(other)` (issue 29).
 */
import { MAX_REMEMBERED_KEYS, OTHER_KEY } from '../metrics-limits.ts';

/** How full one capped map is (the snapshot's `limits`, GET /metrics). Plain data. */
export interface CapUsage {
  /** The configured cap: keys counted by name that no rule watches. */
  readonly cap: number;
  /** Unwatched keys counted by name now (may exceed `cap` for a while: see watch()). */
  readonly used: number;
  /** Watched keys counted by name now (outside the cap). */
  readonly watched: number;
  /** True while some events of the 24 h are counted under `(other)` because the cap was full. */
  readonly overflowed: boolean;
  /** Times the cap filled (a first key went to `(other)`) since this state began. */
  readonly fills: number;
}

const NO_KEYS: ReadonlySet<string> = new Set();

export class KeyRegistry {
  private readonly ids = new Map<string, number>();
  private readonly names: (string | undefined)[] = [];
  private readonly freeIds: number[] = [];
  /** Live ids of watched keys: they count neither in `namedCount` nor under the cap. */
  private readonly watchedIds = new Set<number>();
  private watchedKeys: ReadonlySet<string> = NO_KEYS;
  private namedCount = 0;
  private otherId = -1;
  private fillCount = 0;
  /** Every key used since start / reset (bounded), for hasKey(): released keys stay here. */
  private readonly remembered = new Set<string>();

  constructor(private readonly maxKeys: number) {}

  /**
   * Ids are always below this: it bounds the growth of the id-indexed arrays and sizes the scratch
   * arrays over ids. `maxKeys` named keys plus `(other)`, or more once watched keys took ids.
   */
  get idLimit(): number {
    return Math.max(this.maxKeys + 1, this.names.length);
  }

  /** Hot path: the id counting `key`, registering it (or mapping it to `(other)`) when new. */
  idOf(key: string): number {
    const id = this.ids.get(key);
    return id === undefined ? this.register(key) : id;
  }

  /** The id of a key currently counted by name (or `(other)`), without registering it. */
  find(key: string): number | undefined {
    return this.ids.get(key);
  }

  /** True when some event since start or the last reset used this key (see MAX_REMEMBERED_KEYS). */
  hasSeen(key: string): boolean {
    return this.ids.has(key) || this.remembered.has(key);
  }

  /** The key of a live id, undefined for a released one. */
  nameOf(id: number): string | undefined {
    return this.names[id];
  }

  /** True for the live id of a key a rule watches. */
  isWatched(id: number): boolean {
    return this.watchedIds.has(id);
  }

  /** One past the highest id ever handed out: the bound of every loop over ids. */
  get idCount(): number {
    return this.names.length;
  }

  usage(): CapUsage {
    return {
      cap: this.maxKeys,
      used: this.namedCount,
      watched: this.watchedIds.size,
      overflowed: this.otherId >= 0,
      fills: this.fillCount,
    };
  }

  /**
   * The keys the rules name now (bounded by the rule set, not by the cap). A key already counted by
   * name becomes watched and gives its place under the cap back. A key counted under `(other)` gets
   * its own id at its next event: what it counted before stays in `(other)` (nothing tells those
   * events apart). A key no longer watched keeps its id until its events leave the 24 h, as an
   * ordinary key: until enough of those leave, the cap may be exceeded by the keys rules dropped,
   * and new keys go to `(other)`.
   */
  watch(keys: ReadonlySet<string>): void {
    for (const id of [...this.watchedIds]) {
      const name = this.names[id];
      if (name !== undefined && keys.has(name)) continue;
      this.watchedIds.delete(id);
      this.namedCount++;
    }
    for (const key of keys) {
      const id = this.ids.get(key);
      if (id === undefined || id === this.otherId || this.watchedIds.has(id)) continue;
      this.watchedIds.add(id);
      this.namedCount--;
    }
    this.watchedKeys = keys;
  }

  /** Called when the key's count in the 24 h fell to 0: its id may now serve another key. */
  release(id: number): void {
    const name = this.names[id];
    if (name === undefined) return;
    this.ids.delete(name);
    this.names[id] = undefined;
    this.freeIds.push(id);
    if (id === this.otherId) this.otherId = -1;
    else if (this.watchedIds.delete(id)) return;
    else this.namedCount--;
  }

  /**
   * A key without an id: a new key, or one of a full cap (each of its events comes here, so the
   * watched lookup costs only new keys and keys past the cap).
   */
  private register(key: string): number {
    this.remember(key);
    if (this.watchedKeys.has(key) && key !== OTHER_KEY) {
      const id = this.allocate(key);
      this.watchedIds.add(id);
      return id;
    }
    if (this.namedCount < this.maxKeys) {
      this.namedCount++;
      return this.allocate(key);
    }
    if (this.otherId < 0) {
      this.fillCount++;
      this.remember(OTHER_KEY);
      // A real key spelled `(other)` may already hold the name: the overflow then shares it.
      const existing = this.ids.get(OTHER_KEY);
      if (existing === undefined) this.otherId = this.allocate(OTHER_KEY);
      else {
        this.otherId = existing;
        if (!this.watchedIds.delete(existing)) this.namedCount--;
      }
    }
    return this.otherId;
  }

  private remember(key: string): void {
    if (this.remembered.size < MAX_REMEMBERED_KEYS) this.remembered.add(key);
  }

  private allocate(key: string): number {
    const id = this.freeIds.pop() ?? this.names.length;
    this.names[id] = key;
    this.ids.set(key, id);
    return id;
  }
}
