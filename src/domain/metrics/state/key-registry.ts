/**
 * @module Dense ids for the keys of one map (event types or sources), capped: past `maxKeys` named
 * keys a new key gets the id of `(other)`. Ids of keys that left the 24 h are released and reused.
 */
import { MAX_REMEMBERED_KEYS, OTHER_KEY } from '../metrics-limits.ts';

export class KeyRegistry {
  /** Ids are always below this: `maxKeys` named keys plus `(other)`. */
  readonly idLimit: number;
  private readonly ids = new Map<string, number>();
  private readonly names: (string | undefined)[] = [];
  private readonly freeIds: number[] = [];
  private namedCount = 0;
  private otherId = -1;
  /** Every key used since start / reset (bounded), for hasKey(): released keys stay here. */
  private readonly remembered = new Set<string>();

  constructor(private readonly maxKeys: number) {
    this.idLimit = maxKeys + 1;
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

  /** One past the highest id ever handed out: the bound of every loop over ids. */
  get idCount(): number {
    return this.names.length;
  }

  /** Called when the key's count in the 24 h fell to 0: its id may now serve another key. */
  release(id: number): void {
    const name = this.names[id];
    if (name === undefined) return;
    this.ids.delete(name);
    this.names[id] = undefined;
    this.freeIds.push(id);
    if (id === this.otherId) this.otherId = -1;
    else this.namedCount--;
  }

  private register(key: string): number {
    this.remember(key);
    if (this.namedCount < this.maxKeys) {
      this.namedCount++;
      return this.allocate(key);
    }
    if (this.otherId < 0) {
      this.remember(OTHER_KEY);
      // A real key spelled `(other)` may already hold the name: the overflow then shares it.
      const existing = this.ids.get(OTHER_KEY);
      if (existing === undefined) this.otherId = this.allocate(OTHER_KEY);
      else {
        this.otherId = existing;
        this.namedCount--;
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
