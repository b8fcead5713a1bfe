/**
 * Preloaded into the benched service (NODE_OPTIONS=--import, see bench/report/service-threads.ts)
 * by the CPU breakdown of bench:ingest. On Node 20 every thread of the process is called "node" in
 * /proc/<pid>/task/<tid>/comm, so the storage workers and the metrics actor cannot be told from
 * V8's and libuv's threads. Each worker thread names itself once, before its entry runs, after the
 * kind of workerData it was given: nothing runs on the service's request path. Plain JavaScript:
 * the compiled service runs on plain node, without tsx.
 */
import { writeFileSync } from 'node:fs';
import { isMainThread, workerData } from 'node:worker_threads';

/** Names the benches classify by (at most 15 bytes: the kernel's limit for a thread name). */
function threadName(data) {
  if (typeof data !== 'object' || data === null) return 'vigil-worker';
  // StorageWorkerData (src/protocol/storage.ts) and MetricsActorData (src/protocol/metrics-actor.ts).
  if ('queryTimeoutMs' in data) return 'vigil-storage';
  if ('refreshMs' in data) return 'vigil-metrics';
  return 'vigil-worker';
}

if (!isMainThread) {
  try {
    writeFileSync('/proc/thread-self/comm', threadName(workerData));
  } catch {
    // Not Linux: the breakdown then counts the workers as other threads, and says so.
  }
}
