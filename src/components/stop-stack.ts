/**
 * @module The stops of what the service started, newest first: the same stack undoes a failed
 * start and shuts the service down, so the two orders cannot drift apart (issue 31).
 */
import type { Logger } from '../log.ts';

export type Stop = () => Promise<unknown> | void;

export interface StopStack {
  /** `name` says what failed to stop, in the log. */
  push(name: string, stop: Stop): void;
  /**
   * Runs every stop, newest first, each awaited; a stop that throws is logged and the rest still
   * run (a leftover embedded PostgreSQL would outlive the process). Once: a second call waits for
   * the first.
   */
  stopAll(): Promise<void>;
}

export function createStopStack(log: Pick<Logger, 'warn'>): StopStack {
  const stops: { readonly name: string; readonly stop: Stop }[] = [];
  let stopping: Promise<void> | null = null;
  const run = async (): Promise<void> => {
    for (let i = stops.length - 1; i >= 0; i--) {
      const { name, stop } = stops[i]!;
      try {
        await stop();
      } catch (error) {
        log.warn({ err: error, part: name }, `stopping ${name} failed; stopping the rest`);
      }
    }
  };
  return {
    push: (name, stop) => void stops.push({ name, stop }),
    stopAll: () => (stopping ??= run()),
  };
}

/**
 * Runs a part's start with a stack of its own: when it throws, what it started is stopped (newest
 * first) and the error is thrown again; otherwise its stack is left to the caller, who pushes the
 * part's stop where its place in the shutdown is.
 */
export async function startPart<T>(
  log: Pick<Logger, 'warn'>,
  start: (stack: StopStack) => Promise<T>,
): Promise<T> {
  const stack = createStopStack(log);
  try {
    return await start(stack);
  } catch (error) {
    await stack.stopAll();
    throw error;
  }
}
