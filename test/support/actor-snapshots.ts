/**
 * Counts the snapshots the metrics actor posts to the front thread, with no product hook: the
 * Worker class of node:worker_threads is replaced (module.syncBuiltinESMExports) by a subclass
 * that listens to the actor threads it creates. Install it before the service starts. A test then
 * waits for later snapshots, refreshes that would show a change, instead of sleeping through a
 * few refresh periods.
 */
import { syncBuiltinESMExports } from 'node:module';
import workerThreads, { Worker, type WorkerOptions } from 'node:worker_threads';

const ACTOR_FILE = '/workers/metrics-actor.worker.ts';

export interface ActorSnapshots {
  /** Snapshots posted so far, by every actor thread started since install. */
  count(): number;
  /** Resolves once `n` more snapshots than now were posted; rejects after `timeoutMs`. */
  pass(n: number, timeoutMs?: number): Promise<void>;
}

export function countActorSnapshots(): ActorSnapshots {
  let posted = 0;
  let waiters: (() => void)[] = [];
  class CountingWorker extends Worker {
    constructor(filename: string | URL, options?: WorkerOptions) {
      super(filename, options);
      if (!String(filename).endsWith(ACTOR_FILE)) return;
      this.on('message', (notice: { type?: unknown }) => {
        if (notice.type !== 'snapshot') return;
        posted++;
        const woken = waiters;
        waiters = [];
        for (const wake of woken) wake();
      });
    }
  }
  (workerThreads as { Worker: typeof Worker }).Worker = CountingWorker;
  syncBuiltinESMExports();
  return {
    count: () => posted,
    async pass(n, timeoutMs = 10_000) {
      const target = posted + n;
      const deadline = AbortSignal.timeout(timeoutMs);
      while (posted < target) {
        if (deadline.aborted) throw new Error(`${n} snapshots did not come (${posted})`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          deadline.addEventListener('abort', () => resolve(), { once: true });
        });
      }
    },
  };
}
