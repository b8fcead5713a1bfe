/**
 * @module The calling thread's V8 heap in use (each worker thread has a heap of its own), for
 * GET /api/v1/rules/evaluation-stats: what the metrics actor's state holds. With --expose-gc (the
 * rules bench starts the service so) a full collection runs first, so garbage is not counted; it
 * takes some milliseconds on a large heap, which is why nothing else here ever asks for one.
 */
import { getHeapStatistics } from 'node:v8';

export interface ActorHeap {
  readonly usedBytes: number;
  /**
   * True when the process runs with --expose-gc (bench:rules starts it so): the actor collected
   * its garbage first, so usedBytes is what it holds. False: usedBytes includes garbage.
   */
  readonly gcRan: boolean;
}

export function actorHeap(): ActorHeap {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  return { usedBytes: getHeapStatistics().used_heap_size, gcRan: gc !== undefined };
}
