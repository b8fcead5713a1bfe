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

export const connect = (options: ConnectOptions): Sql =>
  postgres(options.url, {
    max: options.max,
    idle_timeout: 30,
    connect_timeout: Math.max(1, Math.ceil(options.queryTimeoutMs / 1000)),
    onnotice: () => {},
    connection: {
      search_path: options.schema,
      statement_timeout: options.queryTimeoutMs,
      application_name: 'vigil',
    },
  });
