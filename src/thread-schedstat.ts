/**
 * @module Moved to src/instrumentation/thread-schedstat.ts. Only bench/load/thread-cpu.ts and
 * bench/load/raw-get-process.ts still import this path: delete this file once they import the new one.
 */
export { threadSchedTimes, type SchedTimes } from './instrumentation/thread-schedstat.ts';
