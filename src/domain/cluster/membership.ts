/**
 * @module The cluster thread's knowledge of its peers, and the ClusterView it derives (pure; the
 * clock is passed in). A batch is counted once per (instance, incarnation, number). A live peer
 * (alive in PostgreSQL, or heard on the heartbeat subject) is complete when, within GRACE_MS of
 * any target being set, every batch up to that target has arrived: targets are the number its
 * heartbeat says it has decided (committed or failed), and the highest number seen so far (a
 * hole below it is a missing batch). A peer alive in PostgreSQL but not heard for STALE_MS is
 * incomplete too: its broker connection is down, so its batches are not reaching us.
 */
import { positionOf } from './batch-seq.ts';
import type { ClusterView } from './cluster-view.ts';
import { ReceivedBatches } from './received-batches.ts';

/** How long a batch may be late (in flight, relayed) before the view says it is missing. */
export const GRACE_MS = 3_000;
/** A heartbeat older than this is stale (they come every second). */
export const STALE_MS = 3_000;
/** Incarnations of one instance kept for recognising repeats; older ones are forgotten. */
const INCARNATIONS_KEPT = 4;
/** Instances tracked at most; the least recently heard is forgotten past it. */
const MAX_INSTANCES = 1_000;
/** Targets kept per peer (about one per second): the oldest unmet one decides. */
const MAX_TARGETS = 16;

/**
 * What a heartbeat says (JSON on `<cluster>.hb.<id>`): the instance's last batch seq such that
 * every batch of its incarnation up to it is decided: committed (so published, or in the outbox)
 * or failed (and published empty). Its incarnation is in it (batch-seq.ts).
 */
export interface Heartbeat {
  readonly lastSeq: number;
}

/** An instance PostgreSQL says is alive (its last_seen is recent). */
export interface AliveInstance {
  readonly id: string;
  readonly incarnation: number;
}

interface Target {
  readonly at: number;
  readonly incarnation: number;
  readonly number: number;
}

interface Peer {
  readonly incarnations: Map<number, ReceivedBatches>;
  /** Something of it was counted here (a batch with events, or an empty one). */
  counted: boolean;
  heard: { readonly at: number; readonly incarnation: number } | null;
  alive: AliveInstance | null;
  /** When PostgreSQL first said it was alive (a peer just started is given GRACE_MS). */
  aliveSince: number | null;
  targets: Target[];
  touched: number;
}

export type Acceptance = 'new' | 'repeat' | 'own';

export class ClusterMembership {
  private readonly peers = new Map<string, Peer>();

  constructor(
    readonly self: string,
    readonly incarnation: number,
  ) {}

  /** A batch from the stream: `new` to count, `repeat` to drop, `own` (fed directly) to skip. */
  accept(instanceId: string, seq: number, now: number): Acceptance {
    const { incarnation, number } = positionOf(seq);
    if (instanceId === this.self && incarnation === this.incarnation) return 'own';
    const peer = this.peer(instanceId, now);
    let received = peer.incarnations.get(incarnation);
    if (received === undefined) {
      received = new ReceivedBatches();
      peer.incarnations.set(incarnation, received);
      this.forgetOldIncarnations(peer);
    }
    if (!received.accept(number)) return 'repeat';
    peer.counted = true;
    return 'new';
  }

  heartbeat(instanceId: string, beat: Heartbeat, now: number): void {
    if (instanceId === this.self) return;
    const peer = this.peer(instanceId, now);
    const { incarnation, number } = positionOf(beat.lastSeq);
    peer.heard = { at: now, incarnation };
    this.addTarget(peer, { at: now, incarnation, number });
  }

  /** The instances PostgreSQL says are alive now (this one included or not). */
  alive(instances: readonly AliveInstance[], now: number): void {
    const ids = new Set<string>();
    for (const alive of instances) {
      if (alive.id === this.self) continue;
      ids.add(alive.id);
      const peer = this.peer(alive.id, now);
      peer.aliveSince ??= now;
      peer.alive = alive;
    }
    for (const [id, peer] of this.peers) {
      if (ids.has(id)) continue;
      peer.alive = null;
      peer.aliveSince = null;
    }
  }

  /**
   * The view now. `streaming`: connected to the broker, and the stream read up to its end once
   * since (re)connecting; without it no peer's batches are arriving.
   */
  view(now: number, streaming: boolean): ClusterView {
    let complete = streaming;
    const counted: string[] = [];
    for (const [id, peer] of this.peers) {
      const live = this.isLive(peer, now);
      if (live) {
        this.targetHighest(peer, now);
        if (!this.caughtUp(peer, now)) complete = false;
        else if (peer.heard === null || now - peer.heard.at > STALE_MS) {
          // Alive in PostgreSQL, silent on the broker: its batches are not reaching us.
          if (now - (peer.aliveSince ?? now) > STALE_MS) complete = false;
        }
      }
      if (peer.counted || (live && this.caughtUp(peer, now))) counted.push(id);
    }
    counted.sort();
    return { instances: [this.self, ...counted], complete };
  }

  /** Batch numbers given up (holes never filled past the memory bound), over every instance. */
  givenUp(): number {
    let total = 0;
    for (const peer of this.peers.values())
      for (const received of peer.incarnations.values()) total += received.givenUp;
    return total;
  }

  private isLive(peer: Peer, now: number): boolean {
    return peer.alive !== null || (peer.heard !== null && now - peer.heard.at <= STALE_MS);
  }

  /** The highest number seen of the current incarnation: a hole below it must fill in time. */
  private targetHighest(peer: Peer, now: number): void {
    const incarnation = this.currentIncarnation(peer);
    const high = incarnation === null ? 0 : (peer.incarnations.get(incarnation)?.high ?? 0);
    if (incarnation !== null && high > 0)
      this.addTarget(peer, { at: now, incarnation, number: high });
  }

  /** False when a target older than GRACE_MS is still unmet. */
  private caughtUp(peer: Peer, now: number): boolean {
    const current = this.currentIncarnation(peer);
    peer.targets = peer.targets.filter((target) => {
      // A target of an incarnation that is no longer current cannot be met any more: that
      // incarnation died, and its unpublished batches come through the relay when they come.
      if (current !== null && target.incarnation < current) return false;
      const received = peer.incarnations.get(target.incarnation);
      return (received?.prefix ?? 0) < target.number;
    });
    return peer.targets.every((target) => now - target.at <= GRACE_MS);
  }

  private currentIncarnation(peer: Peer): number | null {
    const fromPg = peer.alive?.incarnation ?? 0;
    const fromBeat = peer.heard?.incarnation ?? 0;
    const current = Math.max(fromPg, fromBeat);
    return current === 0 ? null : current;
  }

  private addTarget(peer: Peer, target: Target): void {
    if (target.number <= 0) return;
    peer.targets.push(target);
    // Keep the oldest (it decides first) and the newest ones.
    if (peer.targets.length > MAX_TARGETS) peer.targets.splice(1, 1);
  }

  private peer(id: string, now: number): Peer {
    let peer = this.peers.get(id);
    if (peer === undefined) {
      peer = {
        incarnations: new Map(),
        counted: false,
        heard: null,
        alive: null,
        aliveSince: null,
        targets: [],
        touched: now,
      };
      this.peers.set(id, peer);
      if (this.peers.size > MAX_INSTANCES) this.forgetLeastRecent();
    }
    peer.touched = now;
    return peer;
  }

  private forgetOldIncarnations(peer: Peer): void {
    if (peer.incarnations.size <= INCARNATIONS_KEPT) return;
    const oldest = Math.min(...peer.incarnations.keys());
    peer.incarnations.delete(oldest);
  }

  private forgetLeastRecent(): void {
    let oldestId: string | null = null;
    let oldest = Infinity;
    for (const [id, peer] of this.peers) {
      if (peer.touched < oldest) {
        oldest = peer.touched;
        oldestId = id;
      }
    }
    if (oldestId !== null) this.peers.delete(oldestId);
  }
}
