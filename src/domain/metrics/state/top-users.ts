/**
 * @module Users tracked one by one, at most `maxTrackedUsers`, least recently seen forgotten first:
 * per-user event counts in hourly slots (topUsers) and a per-minute count of last-seen users (exact
 * uniqueUsers over any window that ends now, while no user of that window was forgotten).
 */
import { RETENTION_MINUTES } from '../metrics-limits.ts';
import { hourOfMinute, minuteOf } from '../time.ts';

/**
 * A user's count covers the current hour and the 23 before it: the oldest, partial hour of the 24 h
 * is dropped as soon as a new hour begins.
 */
const HOURS = 24;
const NONE = -1;

export interface TopUserEntry {
  readonly userId: string;
  readonly eventCount: number;
  /** Epoch ms of the user's latest event. */
  readonly lastSeen: number;
}

export class UserTracker {
  private readonly slots = new Map<string, number>();
  private readonly ids: (string | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  private capacity = 0;
  private highWater = 0;
  private lastSeen = new Float64Array(0);
  private hourStamp = new Int32Array(0);
  private hourCounts = new Uint32Array(0);
  private totals = new Uint32Array(0);
  // Recency list over slots: head = least recently seen (forgotten first), tail = most recent.
  private prev = new Int32Array(0);
  private next = new Int32Array(0);
  private head = NONE;
  private tail = NONE;
  /** How many tracked users were last seen in each minute of the 24 h. */
  private readonly lastSeenCounts = new Uint32Array(RETENTION_MINUTES);
  private readonly lastSeenStamps = new Float64Array(RETENTION_MINUTES).fill(-1);
  private oldestMinute = 0;
  /** Newest last-seen minute of a user forgotten (past the cap) while still inside the 24 h. */
  private lastForgotten = -1;
  /** Times the cap filled: a user still inside the 24 h forgotten while none was before. */
  private fillCount = 0;

  constructor(private readonly maxUsers: number) {}

  /** Hot path: one event of `userId` at `at` (epoch ms) in `minute` = minuteOf(at). */
  record(userId: string, at: number, minute: number): void {
    let slot = this.slots.get(userId);
    if (slot === undefined) {
      slot = this.admit(userId, at, minute);
    } else if (at > this.lastSeen[slot]!) {
      const before = minuteOf(this.lastSeen[slot]!);
      this.lastSeen[slot] = at;
      if (before !== minute) {
        this.unmarkMinute(before);
        this.markMinute(minute);
      }
      if (slot !== this.tail) {
        this.unlink(slot);
        this.linkAtTail(slot);
      }
    }
    this.countInHour(slot, hourOfMinute(minute));
  }

  /**
   * On a new minute: forgets users last seen before `oldestMinute` (the start of the 24 h) and, on a
   * new hour, drops every user's count of the hour that left.
   */
  sweep(oldestMinute: number, currentHour: number, newHour: boolean): void {
    this.oldestMinute = oldestMinute;
    while (this.head !== NONE && minuteOf(this.lastSeen[this.head]!) < oldestMinute) {
      this.remove(this.head);
    }
    if (!newHour) return;
    for (let slot = 0; slot < this.highWater; slot++) {
      if (this.ids[slot] === undefined) continue;
      if (minuteOf(this.lastSeen[slot]!) < oldestMinute) this.remove(slot);
      else this.advanceHours(slot, currentHour);
    }
  }

  /**
   * Exact distinct users seen in minutes `from`..`currentMinute`, or null when a user forgotten
   * past the cap may have been seen in that range (then only an estimate is possible).
   */
  exactSince(from: number, currentMinute: number): number | null {
    if (this.lastForgotten >= from) return null;
    let count = 0;
    for (
      let minute = Math.max(from, currentMinute - RETENTION_MINUTES + 1);
      minute <= currentMinute;
      minute++
    ) {
      count += this.lastSeenIn(minute);
    }
    return count;
  }

  /** True while a user forgotten past the cap may still be in the 24 h (uniqueUsers estimated). */
  get overflowed(): boolean {
    return this.lastForgotten >= this.oldestMinute;
  }

  /** Users tracked one by one now. */
  get tracked(): number {
    return this.slots.size;
  }

  get cap(): number {
    return this.maxUsers;
  }

  get fills(): number {
    return this.fillCount;
  }

  /** Distinct users of a range ending now are exact only when it starts after this minute. */
  get forgottenThrough(): number {
    return this.lastForgotten;
  }

  /** How many tracked users were last seen in `minute` (inside the 24 h). */
  lastSeenIn(minute: number): number {
    const slot = minute % RETENTION_MINUTES;
    return this.lastSeenStamps[slot] === minute ? this.lastSeenCounts[slot]! : 0;
  }

  /** The `k` users with most events (ties: latest lastSeen first, then userId). */
  top(k: number, currentHour: number): TopUserEntry[] {
    const best: number[] = [];
    for (let slot = 0; slot < this.highWater; slot++) {
      if (this.ids[slot] === undefined) continue;
      if (minuteOf(this.lastSeen[slot]!) < this.oldestMinute) continue;
      this.advanceHours(slot, currentHour);
      if (this.totals[slot] === 0) continue;
      if (best.length === k && !this.ranksBefore(slot, best[k - 1]!)) continue;
      let at = best.length === k ? k - 1 : best.length;
      while (at > 0 && this.ranksBefore(slot, best[at - 1]!)) {
        best[at] = best[at - 1]!;
        at--;
      }
      best[at] = slot;
    }
    return best.map((slot) => ({
      userId: this.ids[slot]!,
      eventCount: this.totals[slot]!,
      lastSeen: this.lastSeen[slot]!,
    }));
  }

  private ranksBefore(a: number, b: number): boolean {
    const countA = this.totals[a]!;
    const countB = this.totals[b]!;
    if (countA !== countB) return countA > countB;
    const seenA = this.lastSeen[a]!;
    const seenB = this.lastSeen[b]!;
    if (seenA !== seenB) return seenA > seenB;
    return this.ids[a]! < this.ids[b]!;
  }

  private admit(userId: string, at: number, minute: number): number {
    if (this.slots.size >= this.maxUsers && this.head !== NONE) {
      const forgotten = minuteOf(this.lastSeen[this.head]!);
      if (forgotten >= this.oldestMinute) {
        if (!this.overflowed) this.fillCount++;
        this.lastForgotten = Math.max(this.lastForgotten, forgotten);
      }
      this.remove(this.head);
    }
    const slot = this.freeSlots.pop() ?? this.highWater++;
    if (slot >= this.capacity) this.grow();
    this.ids[slot] = userId;
    this.slots.set(userId, slot);
    this.lastSeen[slot] = at;
    this.hourStamp[slot] = hourOfMinute(minute);
    this.hourCounts.fill(0, slot * HOURS, slot * HOURS + HOURS);
    this.totals[slot] = 0;
    this.linkAtTail(slot);
    this.markMinute(minute);
    return slot;
  }

  private remove(slot: number): void {
    const userId = this.ids[slot];
    if (userId === undefined) return;
    this.unmarkMinute(minuteOf(this.lastSeen[slot]!));
    this.unlink(slot);
    this.slots.delete(userId);
    this.ids[slot] = undefined;
    this.freeSlots.push(slot);
  }

  private countInHour(slot: number, hour: number): void {
    const stamp = this.hourStamp[slot]!;
    if (hour > stamp) this.advanceHours(slot, hour);
    else if (hour <= stamp - HOURS) return; // older than the user's 24 hourly slots
    this.hourCounts[slot * HOURS + (hour % HOURS)]!++;
    this.totals[slot]!++;
  }

  /** Empties the hourly slots between the user's last hour and `hour`, and moves it to `hour`. */
  private advanceHours(slot: number, hour: number): void {
    const stamp = this.hourStamp[slot]!;
    if (hour <= stamp) return;
    const base = slot * HOURS;
    const steps = Math.min(hour - stamp, HOURS);
    for (let step = 1; step <= steps; step++) {
      const index = base + ((stamp + step) % HOURS);
      this.totals[slot]! -= this.hourCounts[index]!;
      this.hourCounts[index] = 0;
    }
    this.hourStamp[slot] = hour;
  }

  private markMinute(minute: number): void {
    const slot = minute % RETENTION_MINUTES;
    if (this.lastSeenStamps[slot] !== minute) {
      this.lastSeenStamps[slot] = minute;
      this.lastSeenCounts[slot] = 0;
    }
    this.lastSeenCounts[slot]!++;
  }

  private unmarkMinute(minute: number): void {
    const slot = minute % RETENTION_MINUTES;
    if (this.lastSeenStamps[slot] === minute) this.lastSeenCounts[slot]!--;
  }

  private linkAtTail(slot: number): void {
    this.prev[slot] = this.tail;
    this.next[slot] = NONE;
    if (this.tail === NONE) this.head = slot;
    else this.next[this.tail] = slot;
    this.tail = slot;
  }

  private unlink(slot: number): void {
    const before = this.prev[slot]!;
    const after = this.next[slot]!;
    if (before === NONE) this.head = after;
    else this.next[before] = after;
    if (after === NONE) this.tail = before;
    else this.prev[after] = before;
  }

  private grow(): void {
    const capacity = Math.min(this.maxUsers, Math.max(64, this.capacity * 2));
    const lastSeen = new Float64Array(capacity);
    const hourStamp = new Int32Array(capacity);
    const prev = new Int32Array(capacity);
    const next = new Int32Array(capacity);
    const totals = new Uint32Array(capacity);
    const hourCounts = new Uint32Array(capacity * HOURS);
    lastSeen.set(this.lastSeen);
    hourStamp.set(this.hourStamp);
    prev.set(this.prev);
    next.set(this.next);
    totals.set(this.totals);
    hourCounts.set(this.hourCounts);
    this.lastSeen = lastSeen;
    this.hourStamp = hourStamp;
    this.prev = prev;
    this.next = next;
    this.totals = totals;
    this.hourCounts = hourCounts;
    this.capacity = capacity;
  }
}
