/**
 * @module The ANOMALY config schema (typebox), declared once: checked before the semantic checks
 * (anomaly-validation.ts, which also takes the aliases its hints name), and the OpenAPI component.
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  ANOMALY_ALGORITHMS,
  ANOMALY_METRICS,
  BUCKET_MINUTES,
  DIRECTIONS,
  SEASONALITIES,
} from './anomaly-config.ts';
import { MAX_LIFECYCLE_SECONDS } from '../../rule-types.ts';

const oneOf = (values: readonly (string | number)[]): string => `One of ${values.join(', ')}`;
const Seconds = Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_LIFECYCLE_SECONDS }));

export const AnomalyConfigSchema = Type.Object(
  {
    metric: Type.String({ description: oneOf(ANOMALY_METRICS) }),
    eventType: Type.Optional(Type.String({ description: 'Only events of this type' })),
    source: Type.Optional(Type.String({ description: 'Only events of this source' })),
    bucketMinutes: Type.Optional(Type.Number({ description: oneOf(BUCKET_MINUTES) })),
    algorithm: Type.Optional(Type.String({ description: oneOf(ANOMALY_ALGORITHMS) })),
    seasonality: Type.Optional(Type.String({ description: oneOf(SEASONALITIES) })),
    timezone: Type.Optional(Type.String({ description: 'IANA time zone of the seasons' })),
    bounds: Type.Optional(Type.Number({ description: 'Width of the band in scales' })),
    direction: Type.Optional(Type.String({ description: oneOf(DIRECTIONS) })),
    alertWindowMinutes: Type.Optional(Type.Number()),
    minFraction: Type.Optional(Type.Number()),
    minExpected: Type.Optional(Type.Number()),
    minDeviation: Type.Optional(Type.Number()),
    minHistoryMinutes: Type.Optional(Type.Number()),
    pendingSeconds: Seconds,
    keepFiringSeconds: Seconds,
  },
  {
    $id: 'AnomalyConfig',
    additionalProperties: false,
    description: 'A series of per-bucket values judged against a band learnt from its history',
  },
);
export type AnomalyConfigInput = Static<typeof AnomalyConfigSchema>;
