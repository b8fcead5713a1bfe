/**
 * @module The contact points, held in memory on the front thread, where deliveries resolve a
 * rule's channel entries. Kept here rather than read through the pool per delivery: an alert then
 * costs no database round trip before its first request, and a database outage does not turn every
 * delivery into a failure. They are loaded at start, reloaded after every write through the API
 * (the write's answer is sent once the reload finished, so the next alert sees it) and every
 * RELOAD_MS (CLUSTER_RELOAD_MS in a cluster), so that changes made through another instance
 * arrive within that time.
 */
import type { StoragePool } from '../actors/storage-pool.ts';
import type { ChannelRef, ContactPoint } from '../domain/contact-points/contact-point.ts';
import type { Logger } from '../log.ts';
import { REAL_TIMERS, type Timers } from '../timers.ts';
import type { ContactPointLookup } from './deliver.ts';

export const RELOAD_MS = 5000;
/**
 * In a cluster the rule leader delivers for rules and contact points made on any instance: a
 * change reaches it within the 2 s the issue allows (one read of a small table per second).
 */
export const CLUSTER_RELOAD_MS = 1000;

export interface ContactPointDirectory extends ContactPointLookup {
  /**
   * Reads every contact point through the pool; resolves once the directory holds a set read after
   * this call. A failure is logged and keeps the previous set (the periodic reload retries).
   * Answers null once loaded, else why it failed.
   */
  reload(): Promise<string | null>;
  /** Stops the periodic reload (shutdown). */
  stop(): void;
}

/** What an entry means among `points`: the type's default, or the point of that name and type. */
export function contactPointIndex(points: readonly ContactPoint[]): ContactPointLookup {
  const byName = new Map(points.map((p) => [p.name, p]));
  const defaults = new Map(points.filter((p) => p.isDefault).map((p) => [p.type, p]));
  return {
    resolve(ref: ChannelRef) {
      if (ref.name === null) return defaults.get(ref.type);
      const point = byName.get(ref.name);
      return point?.type === ref.type ? point : undefined;
    },
  };
}

/** An array whose every index holds an object (`some` would skip a sparse array's holes). */
function isDenseObjectList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (item === null || typeof item !== 'object') return false;
  }
  return true;
}

export function createContactPointDirectory(
  pool: StoragePool,
  log: Logger,
  timers: Pick<Timers, 'setInterval' | 'clearInterval'> = REAL_TIMERS,
  reloadMs = RELOAD_MS,
): ContactPointDirectory {
  let index = contactPointIndex([]);
  // Reads may finish out of order: only a read started after the one applied last replaces it.
  let started = 0;
  let applied = 0;

  const reloadOnce = async (): Promise<string | null> => {
    const seq = ++started;
    const result = await pool.run('listContactPoints', {});
    if (!result.ok) return result.message;
    // A sparse or malformed answer (postgres.js 3.4.9 can hand one out after a statement failed
    // mid-stream on the same connection, docs/decisions.md) keeps the set in force, like a failure.
    if (!isDenseObjectList(result.value))
      return 'the database answered a malformed list of contact points';
    if (seq > applied) {
      applied = seq;
      index = contactPointIndex(result.value);
    }
    return null;
  };
  /** Never rejects: a failure (thrown or answered) is logged, the set in force stays. */
  const reload = async (): Promise<string | null> => {
    const reason = await reloadOnce().catch((error: unknown) =>
      error instanceof Error ? error.message : String(error),
    );
    if (reason !== null) log.error({ reason }, 'could not load the contact points');
    return reason;
  };

  const interval = timers.setInterval(() => void reload(), reloadMs);
  (interval as { unref?: () => void }).unref?.();
  return {
    reload,
    resolve: (ref) => index.resolve(ref),
    stop: () => timers.clearInterval(interval),
  };
}
