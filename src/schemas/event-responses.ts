/**
 * @module Response schemas of the event endpoints (spec 2.1, 2.3, 7, DESIGN 2): they document the
 * API in OpenAPI and let tests check answers against the same definitions.
 */
import { Type } from '@sinclair/typebox';
import { SEVERITIES, type EventRecord } from '../domain/event.ts';
import { describes } from './describes.ts';
import { PageSchema } from './paging.ts';

const Severity = Type.Union(SEVERITIES.map((s) => Type.Literal(s)));

export const EventSchema = describes<EventRecord>()(
  Type.Object({
    id: Type.Integer(),
    eventId: Type.String({ pattern: '^evt_[0-9]+$' }),
    eventType: Type.String(),
    timestamp: Type.String({ format: 'date-time' }),
    source: Type.String(),
    userId: Type.Union([Type.String(), Type.Null()]),
    sessionId: Type.Union([Type.String(), Type.Null()]),
    severity: Severity,
    tags: Type.Record(Type.String(), Type.String()),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    receivedAt: Type.String({ format: 'date-time' }),
    processingLatencyMs: Type.Integer({ minimum: 0 }),
    error: Type.Boolean(),
  }),
);

export const EventPageSchema = PageSchema(EventSchema);

export const AckSchema = Type.Object({
  status: Type.Literal('accepted'),
  eventId: Type.String(),
  eventType: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  message: Type.String(),
});

export const BatchItemErrorSchema = Type.Object({
  status: Type.Literal('error'),
  index: Type.Integer(),
  errors: Type.Record(Type.String(), Type.String()),
});

export const BatchResultSchema = Type.Object({
  status: Type.Literal('accepted'),
  accepted: Type.Integer(),
  rejected: Type.Integer(),
  results: Type.Array(Type.Union([AckSchema, BatchItemErrorSchema])),
});

export const ErrorSchema = Type.Object({
  status: Type.Literal('error'),
  code: Type.String(),
  message: Type.String(),
  errors: Type.Optional(Type.Record(Type.String(), Type.String())),
});

export const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('UP'), Type.Literal('DOWN')]),
  timestamp: Type.String({ description: 'epoch milliseconds' }),
  reason: Type.Optional(Type.String()),
});

export const ServiceInfoSchema = Type.Object({
  status: Type.Literal('running'),
  service: Type.String(),
  version: Type.String(),
  authentication: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    description: "'off': VIGIL_AUTH=off, every route open to anyone (local development only)",
  }),
});
