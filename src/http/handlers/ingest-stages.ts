/**
 * @module GET and DELETE /api/v1/ingest-stages (admin): where single-event requests' time went,
 * stage by stage (src/actors/ingest-stages.ts), for operators and bench:ingest; 404 while
 * INGEST_STAGE_TIMINGS is off, so that nobody reads an empty table as a fast pipeline.
 */
import { Type } from '@sinclair/typebox';
import { INGEST_STAGES, type IngestStageTimings } from '../../actors/ingest-stages.ts';
import { notFound } from '../../errors.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import type { Reply } from '../reply.ts';
import type { Route } from '../route-types.ts';

export interface IngestStagesDeps {
  /** INGEST_STAGE_TIMINGS; null: off. */
  readonly ingestStages: IngestStageTimings | null;
}

const PATH = '/api/v1/ingest-stages';

const timingsOf = (deps: IngestStagesDeps): IngestStageTimings => {
  if (deps.ingestStages === null) {
    throw notFound(
      'Ingest stage timings are off: start the service with INGEST_STAGE_TIMINGS=true',
    );
  }
  return deps.ingestStages;
};

function stages(deps: IngestStagesDeps): Reply {
  const timings = timingsOf(deps);
  const summary = timings.summary();
  return {
    status: 200,
    body: {
      requests: timings.requests(),
      stages: INGEST_STAGES.map((stage) => ({ stage, ...summary[stage] })),
    },
  };
}

const StageSchema = Type.Object({
  stage: Type.Union(INGEST_STAGES.map((stage) => Type.Literal(stage))),
  count: Type.Integer(),
  p50Ms: Type.Number(),
  p99Ms: Type.Number(),
  maxMs: Type.Number(),
});

export const ingestStagesRoutes = (deps: IngestStagesDeps): Route[] => [
  {
    method: 'GET',
    path: PATH,
    scope: 'admin',
    body: 'none',
    doc: {
      summary:
        'Single-event ingest, stage by stage since start or the last reset: p50, p99 and max in ms ' +
        '(INGEST_STAGE_TIMINGS; 404 while off)',
      responses: {
        200: Type.Object({ requests: Type.Integer(), stages: Type.Array(StageSchema) }),
        404: ErrorSchema,
      },
    },
    handle: () => stages(deps),
  },
  {
    method: 'DELETE',
    path: PATH,
    scope: 'admin',
    body: 'none',
    doc: {
      summary: 'Empties the ingest stage timings (a bench measures from here); 404 while off',
      responses: { 204: 'Emptied', 404: ErrorSchema },
    },
    handle: () => {
      timingsOf(deps).reset();
      return { status: 204 };
    },
  },
];
