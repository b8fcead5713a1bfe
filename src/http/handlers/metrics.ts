/**
 * @module Metrics endpoints (spec 4.4, DESIGN 4): the snapshot the metrics actor serialised last
 * (served from memory, never a database query), and reset.
 */
import { Type } from '@sinclair/typebox';
import type { MetricsActor } from '../../actors/metrics-actor-client.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import type { Route } from '../route-types.ts';

export interface MetricsDeps {
  readonly metrics: MetricsActor;
}

const VARY_HEADERS = { Vary: 'Accept-Encoding' };
const GZIP_HEADERS = { 'Content-Encoding': 'gzip', ...VARY_HEADERS };

export const RESET_MESSAGE = 'Metrics reset successfully';

export const metricsRoutes = (deps: MetricsDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/v1/metrics',
    scope: 'read',
    body: 'none',
    gzip: true,
    doc: {
      summary: 'The real-time metrics snapshot (spec 2.10), from memory',
      responses: { 200: Type.Object({}, { additionalProperties: true, description: 'spec 2.10' }) },
    },
    // Gzip only when asked for; Vary on both answers keeps shared caches from mixing them up.
    handle: ({ acceptsGzip }) =>
      acceptsGzip
        ? { status: 200, json: deps.metrics.snapshotGzip(), headers: GZIP_HEADERS }
        : { status: 200, json: deps.metrics.snapshotBytes(), headers: VARY_HEADERS },
  },
  {
    method: 'POST',
    path: '/api/v1/metrics/reset',
    scope: 'admin',
    body: 'none',
    doc: {
      summary: 'Zero every in-memory metric; stored events are untouched',
      responses: { 200: Type.Literal(RESET_MESSAGE), 500: ErrorSchema },
    },
    handle: async () => {
      await deps.metrics.reset();
      return { status: 200, body: RESET_MESSAGE };
    },
  },
];
