/**
 * @module Counts the requests in progress on the front thread and turns new ones away once the
 * service drains, so shutdown can wait for exactly the work it accepted.
 */
import type { RequestGate } from './http/route.ts';

export interface DrainableGate extends RequestGate {
  /** Starts refusing new requests; resolves when those in progress have finished. */
  close(): Promise<void>;
}

export function createRequestGate(): DrainableGate {
  let active = 0;
  let draining = false;
  let idle: (() => void) | null = null;
  return {
    get draining() {
      return draining;
    },
    enter() {
      active++;
    },
    leave() {
      active--;
      if (active === 0 && idle !== null) idle();
    },
    close() {
      draining = true;
      if (active === 0) return Promise.resolve();
      return new Promise((resolve) => {
        idle = resolve;
      });
    },
  };
}
