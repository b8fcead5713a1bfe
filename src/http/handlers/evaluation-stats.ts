/**
 * @module GET /api/v1/rules/evaluation-stats: how long the metrics actor's rule evaluation took
 * per tick (src/telemetry), for operators and the rules bench.
 */
import { Type } from '@sinclair/typebox';
import type { MetricsActor } from '../../actors/metrics-actor-client.ts';
import { validationError } from '../../errors.ts';
import { KEEP_TICKS } from '../../telemetry/tick-stats.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import type { Request, Route } from '../route-types.ts';
import { POSITIVE_INT } from './rules.ts';

export interface EvaluationStatsDeps {
  readonly metrics: MetricsActor;
}

/** `?last=N`: how many of the kept ticks to summarise (all 600 when absent). */
function lastTicksOf(req: Request): number {
  const raw = req.query.get('last');
  if (raw === null) return KEEP_TICKS;
  if (!POSITIVE_INT.test(raw) || Number(raw) > KEEP_TICKS)
    throw validationError({ last: `last must be an integer from 1 to ${KEEP_TICKS}` });
  return Number(raw);
}

const PercentilesSchema = Type.Object({
  p50Ms: Type.Number(),
  p99Ms: Type.Number(),
  maxMs: Type.Number(),
});

export const evaluationStatsRoutes = (deps: EvaluationStatsDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/v1/rules/evaluation-stats',
    scope: 'read',
    body: 'none',
    doc: {
      summary: 'How long evaluating the ACTIVE rules took per tick, over the last `last` ticks',
      query: Type.Object({
        last: Type.Optional(Type.Integer({ minimum: 1, maximum: KEEP_TICKS, default: KEEP_TICKS })),
      }),
      responses: {
        200: Type.Object({
          rules: Type.Integer(),
          ticks: Type.Integer(),
          ...PercentilesSchema.properties,
          onCpu: Type.Union([PercentilesSchema, Type.Null()]),
          heap: Type.Object({ usedBytes: Type.Integer(), gcRan: Type.Boolean() }),
        }),
        400: ErrorSchema,
      },
    },
    handle: async (req) => ({
      status: 200,
      body: await deps.metrics.evaluationStats(lastTicksOf(req)),
    }),
  },
];
