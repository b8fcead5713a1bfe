/**
 * @module The backtest thread's channel (one thread per backtest, docs/backtest.md): its job in
 * workerData, and the one message it posts before it ends.
 */
import type { BacktestResult } from '../domain/rules/backtest/backtest-result.ts';
import type { BacktestJob } from '../domain/rules/backtest/run-backtest.ts';
import type { WireError } from './metrics-actor.ts';

export interface BacktestWorkerData {
  readonly databaseUrl: string;
  readonly schema: string;
  /** Each chunk's statement timeout. */
  readonly queryTimeoutMs: number;
  readonly logLevel: string;
  readonly job: BacktestJob;
}

/** Backtest thread -> front, once. */
export type BacktestMessage =
  | { readonly type: 'done'; readonly result: BacktestResult }
  | { readonly type: 'failed'; readonly error: WireError };
