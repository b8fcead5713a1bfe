/**
 * @module Metrics endpoints (spec 4.4, DESIGN 4): the snapshot the metrics actor serialised last
 * (served from memory, never a database query), the per-minute history of the headline metrics
 * (the dashboard's charts after a reload), and reset.
 */
import { Type } from '@sinclair/typebox';
import type { MetricsActor } from '../../actors/metrics-actor-client.ts';
import { MAX_HISTORY_MINUTES } from '../../domain/metrics/snapshot/history.ts';
import { AppError, validationError } from '../../errors.ts';
import type { DbFailure, Result } from '../../protocol/storage/index.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import { MetricsSnapshotSchema } from '../../schemas/metrics-snapshot.ts';
import type { Request, Route } from '../route-types.ts';
import { POSITIVE_INT } from './rules.ts';

export interface MetricsDeps {
  readonly metrics: MetricsActor;
  /** Cluster mode: a reset resets every instance (metrics-reset-watch.ts); absent: this one. */
  readonly resetEverywhere?: () => Promise<Result<true, DbFailure>>;
}

const VARY_HEADERS = { Vary: 'Accept-Encoding' };
const GZIP_HEADERS = { 'Content-Encoding': 'gzip', ...VARY_HEADERS };

export const RESET_MESSAGE = 'Metrics reset successfully';

export const DEFAULT_HISTORY_MINUTES = 60;

/** `?minutes=N`: 1..1440 (the 24 h the actor keeps), 60 when absent. */
function historyMinutesOf(req: Request): number {
  const raw = req.query.get('minutes');
  if (raw === null) return DEFAULT_HISTORY_MINUTES;
  if (!POSITIVE_INT.test(raw) || Number(raw) > MAX_HISTORY_MINUTES)
    throw validationError({
      minutes: `minutes must be an integer from 1 to ${MAX_HISTORY_MINUTES}`,
    });
  return Number(raw);
}

const HistoryPointSchema = Type.Object({
  t: Type.Integer({ description: "The minute's start, epoch ms" }),
  events: Type.Integer(),
  errors: Type.Integer(),
  eventsPerSecond: Type.Number({ description: 'Over the minute (its elapsed part if current)' }),
  errorRate: Type.Number({ description: 'Percent of the minute’s events' }),
  p50: Type.Number({ description: 'Latency, ms' }),
  p95: Type.Number(),
  p99: Type.Number(),
});

export const metricsRoutes = (deps: MetricsDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/v1/metrics',
    scope: 'read',
    body: 'none',
    gzip: true,
    doc: {
      summary: 'The real-time metrics snapshot (spec 2.10), from memory',
      responses: { 200: MetricsSnapshotSchema },
    },
    // Gzip only when asked for; Vary on both answers keeps shared caches from mixing them up.
    handle: ({ acceptsGzip }) =>
      acceptsGzip
        ? { status: 200, json: deps.metrics.snapshotGzip(), headers: GZIP_HEADERS }
        : { status: 200, json: deps.metrics.snapshotBytes(), headers: VARY_HEADERS },
  },
  {
    method: 'GET',
    path: '/api/v1/metrics/history',
    scope: 'read',
    body: 'none',
    doc: {
      summary: `The last \`minutes\` minute by minute, oldest first (default ${DEFAULT_HISTORY_MINUTES}, at most ${MAX_HISTORY_MINUTES}), from memory`,
      query: Type.Object({
        minutes: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: MAX_HISTORY_MINUTES,
            default: DEFAULT_HISTORY_MINUTES,
          }),
        ),
      }),
      responses: {
        200: Type.Object({ points: Type.Array(HistoryPointSchema) }),
        400: ErrorSchema,
        500: ErrorSchema,
      },
    },
    handle: async (req) => ({
      status: 200,
      body: await deps.metrics.history(historyMinutesOf(req)),
    }),
  },
  {
    method: 'POST',
    path: '/api/v1/metrics/reset',
    scope: 'admin',
    body: 'none',
    doc: {
      summary:
        'Zero every in-memory metric (in a cluster: every instance’s); stored events are untouched',
      responses: { 200: Type.Literal(RESET_MESSAGE), 500: ErrorSchema },
    },
    handle: async () => {
      if (deps.resetEverywhere === undefined) await deps.metrics.reset();
      else {
        const result = await deps.resetEverywhere();
        if (!result.ok)
          throw new AppError('INTERNAL', `Failed to reset metrics: ${result.message}`);
      }
      return { status: 200, body: RESET_MESSAGE };
    },
  },
];
