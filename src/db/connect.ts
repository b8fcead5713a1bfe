/**
 * @module postgres.js client factory (storage workers and tests): pool size, timeouts and the
 * schema on the search_path come from configuration.
 */
import postgres from 'postgres';

export type Sql = postgres.Sql;
export type Tx = postgres.TransactionSql;

export interface ConnectOptions {
  readonly url: string;
  readonly schema: string;
  readonly max: number;
  readonly queryTimeoutMs: number;
}

/**
 * Seconds to wait before reconnecting after `retries` failed attempts. postgres.js's default grows
 * to 20 s (3^retries / 100): after a short outage every query, health checks included, would
 * first wait out that delay, failing slowly while PostgreSQL is down and staying down for up to
 * 20 s after it is back. Ours doubles from 50 ms up to a quarter of the query timeout (at most
 * 1 s), so no query waits longer for a reconnect than it may take in all.
 */
export const reconnectDelaySeconds =
  (queryTimeoutMs: number) =>
  (retries: number): number =>
    Math.min(0.05 * 2 ** Math.max(0, retries - 1), Math.min(1000, queryTimeoutMs / 4) / 1000);

export const connect = (options: ConnectOptions): Sql =>
  postgres(options.url, {
    max: options.max,
    idle_timeout: 30,
    connect_timeout: Math.max(1, Math.ceil(options.queryTimeoutMs / 1000)),
    backoff: reconnectDelaySeconds(options.queryTimeoutMs),
    onnotice: () => {},
    connection: {
      search_path: options.schema,
      statement_timeout: options.queryTimeoutMs,
      application_name: 'vigil',
      // Every statement here is short, but a deep page's plan carries a LIMIT with an OFFSET the
      // planner cannot see (it assumes a tenth of the index): past jit_above_cost, PostgreSQL
      // builds with LLVM compiled 40 to 150 ms of code for a query that runs in 5 ms (10,000,000
      // events, docs/benchmarks.md). The embedded PostgreSQL ships without JIT anyway.
      jit: 'off',
    },
  });
