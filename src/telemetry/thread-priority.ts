/**
 * @module Lowers the calling thread's scheduling priority (Linux): a backtest replays a week of
 * events on a thread of its own, and on two shared cores its CPU would otherwise be taken from the
 * front thread and the storage workers in equal turns, tripling ingest p99 while it runs
 * (docs/benchmarks.md, backtest scenario). On Linux, setpriority() on a thread id affects that
 * thread alone; Node names the id only through /proc/thread-self.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Nice value of a background thread: the lowest priority, it runs when the others wait. */
export const BACKGROUND_NICE = 19;

/** True when the thread now runs at `nice`; false where the platform does not allow it. */
export function lowerThisThread(nice: number = BACKGROUND_NICE): boolean {
  try {
    // "<pid>/task/<tid>"
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    // Not Linux, or no /proc: the thread keeps the process's priority; only latency suffers.
    return false;
  }
}
