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

export const RESET_MESSAGE = 'Metrics reset successfully';

export const metricsRoutes = (deps: MetricsDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/v1/metrics',
    body: 'none',
    doc: {
      summary: 'The real-time metrics snapshot (spec 2.10), from memory',
      responses: { 200: Type.Object({}, { additionalProperties: true, description: 'spec 2.10' }) },
    },
    handle: () => ({ status: 200, json: deps.metrics.snapshotBytes() }),
  },
  {
    method: 'POST',
    path: '/api/v1/metrics/reset',
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
