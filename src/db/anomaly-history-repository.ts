/**
 * @module The stored history of an ANOMALY series (storage workers): its bucket values from the
 * events table, one bounded query per series when its rule is created, enabled or changed, or the
 * metrics actor restarts (and by a backtest before its replay). Bucketed by receipt time, as the
 * live metrics count; the range is found through the receipt-time index (events_received_id).
 */
import { MAX_BACKFILL_MINUTES } from '../domain/rules/kinds/anomaly/anomaly-config.ts';
import type { BackfillRequest } from '../domain/rules/kinds/anomaly/anomaly-rules.ts';
import type { BucketMeasure } from '../domain/metrics/windows/bucket-read.ts';
import type { Sql } from './connect.ts';

/** A series' read never holds a connection longer: the service keeps going without its history. */
const STATEMENT_TIMEOUT = '30s';

/** Per measure, the aggregate of one bucket (fixed SQL, chosen by name, never from input). */
const MEASURES: Readonly<Record<BucketMeasure, string>> = {
  eventRate: 'count(*)::float8',
  errorRate: "(count(*) FILTER (WHERE severity IN ('ERROR', 'CRITICAL')))::float8 * 100 / count(*)",
  latencyP50: 'percentile_disc(0.5) WITHIN GROUP (ORDER BY processing_latency_ms)::float8',
  latencyP95: 'percentile_disc(0.95) WITHIN GROUP (ORDER BY processing_latency_ms)::float8',
  latencyP99: 'percentile_disc(0.99) WITHIN GROUP (ORDER BY processing_latency_ms)::float8',
  uniqueUsers: 'count(DISTINCT user_id)::float8',
};

/** The value of every bucket from `from` to `to`, oldest first (0 for a bucket without events). */
export async function anomalyHistory(sql: Sql, request: BackfillRequest): Promise<number[]> {
  const bucketMs = request.bucketMinutes * 60_000;
  const maxBuckets = Math.ceil(MAX_BACKFILL_MINUTES / request.bucketMinutes);
  const count = Math.min(
    maxBuckets,
    Math.max(0, Math.round((request.to - request.from) / bucketMs)),
  );
  const values = new Array<number>(count).fill(0);
  if (count === 0) return values;
  const from = request.to - count * bucketMs;
  const { eventType, source, metric } = request.read;
  const rows = await sql.begin(async (tx) => {
    await tx.unsafe(`SET LOCAL statement_timeout = '${STATEMENT_TIMEOUT}'`);
    return tx<{ i: number; v: number | null }[]>`
      SELECT floor((extract(epoch FROM received_at) * 1000 - ${from}) / ${bucketMs})::int AS i,
             ${tx.unsafe(MEASURES[metric])} AS v
      FROM events
      WHERE received_at >= ${new Date(from)} AND received_at < ${new Date(request.to)}
        ${eventType === undefined ? tx`` : tx`AND event_type = ${eventType}`}
        ${source === undefined ? tx`` : tx`AND source = ${source}`}
      GROUP BY 1`;
  });
  for (const row of rows) if (row.i >= 0 && row.i < count) values[row.i] = row.v ?? 0;
  return values;
}
