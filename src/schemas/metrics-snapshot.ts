/**
 * @module Response schema of GET /api/v1/metrics (the /topic/metrics broadcast too): documents the
 * snapshot of spec 2.10 in OpenAPI, tied at compile time to its one declaration in
 * src/domain/metrics/snapshot/snapshot.ts, so a generated client reads `summary.totalEvents` typed.
 */
import { Type } from '@sinclair/typebox';
import { SEVERITIES } from '../domain/event.ts';
import type {
  LatencyStats,
  MetricsSnapshot,
  MetricsSummary,
  OverallLatencyStats,
  RestoredFrom,
  TimeWindowStats,
  TopUser,
} from '../domain/metrics/snapshot/snapshot.ts';
import { literals } from './alert-responses.ts';
import { describes } from './describes.ts';

const Count = Type.Integer({ minimum: 0 });
const Instant = Type.String({ format: 'date-time' });
const Counts = Type.Record(Type.String(), Count);

const SummarySchema = describes<MetricsSummary>()(
  Type.Object({
    totalEvents: Count,
    eventsPerSecond: Type.Number({ description: '= throughput.current' }),
    avgLatency: Type.Number({ description: 'ms' }),
    errorRate: Type.Number({ description: 'Percent of the events' }),
    uniqueUsers: Count,
    uniqueSources: Count,
    uniqueEventTypes: Count,
  }),
);

const latency = {
  p50: Type.Number({ description: 'ms' }),
  p95: Type.Number(),
  p99: Type.Number(),
  avg: Type.Number(),
};
const LatencySchema = describes<LatencyStats>()(Type.Object(latency));
const OverallLatencySchema = describes<OverallLatencyStats>()(
  Type.Object({ ...latency, min: Type.Number(), max: Type.Number(), sampleCount: Count }),
);

const WindowSchema = describes<TimeWindowStats>()(
  Type.Object({ events: Count, avgLatency: Type.Number(), errorRate: Type.Number() }),
);

const TopUserSchema = describes<TopUser>()(
  Type.Object({ userId: Type.String(), eventCount: Count, lastSeen: Instant }),
);

const capUsage = {
  cap: Type.Integer({ description: 'Keys counted by name that no rule watches, at most' }),
  used: Count,
  overflowed: Type.Boolean({ description: 'Some events of the 24 h are counted under (other)' }),
  fills: Count,
};
const CapUsageSchema = Type.Object({
  ...capUsage,
  watched: Type.Integer({ minimum: 0, description: 'Watched keys, outside the cap' }),
});

const RestoredFromSchema = describes<RestoredFrom>()(
  Type.Object({
    checkpointAt: Type.Union([Instant, Type.Null()]),
    replayedEvents: Count,
    restoredAt: Instant,
    restoreMs: Type.Number(),
    rebuilt: Type.Optional(Type.Object({ reason: Type.String(), rebuiltMinutes: Type.Integer() })),
  }),
);

export const MetricsSnapshotSchema = describes<MetricsSnapshot>()(
  Type.Object(
    {
      summary: SummarySchema,
      eventsByType: Counts,
      eventsBySource: Counts,
      eventsBySeverity: Type.Object(
        Object.fromEntries(SEVERITIES.map((s) => [s, Count])) as Record<
          (typeof SEVERITIES)[number],
          typeof Count
        >,
      ),
      latencyMetrics: Type.Object({
        overall: OverallLatencySchema,
        byType: Type.Record(Type.String(), LatencySchema),
        bySource: Type.Record(Type.String(), LatencySchema),
      }),
      errorMetrics: Type.Object({
        totalErrors: Count,
        errorRate: Type.Number(),
        errorsByType: Counts,
        errorsBySource: Counts,
      }),
      throughput: Type.Object({
        current: Type.Number({ description: 'Events per second over the last 5 full seconds' }),
        peak: Type.Number(),
        peakTimestamp: Instant,
        avg: Type.Number(),
        trend: literals(['increasing', 'decreasing', 'stable'] as const),
      }),
      timeWindows: Type.Object({
        last5Minutes: WindowSchema,
        last15Minutes: WindowSchema,
        last1Hour: WindowSchema,
      }),
      topUsers: Type.Array(TopUserSchema),
      limits: Type.Object(
        {
          eventTypes: CapUsageSchema,
          sources: CapUsageSchema,
          users: Type.Object(capUsage),
        },
        { description: 'How full each cap is (docs/metrics.md "Caps"); not in spec 2.10' },
      ),
      cluster: Type.Optional(
        Type.Object(
          { instances: Type.Array(Type.String()), complete: Type.Boolean() },
          { description: 'Cluster mode only: whose batches these figures count' },
        ),
      ),
      restoredFrom: Type.Optional(RestoredFromSchema),
    },
    { description: 'The real-time metrics snapshot (spec 2.10)' },
  ),
);
