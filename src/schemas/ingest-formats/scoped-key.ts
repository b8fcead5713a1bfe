/**
 * @module The idempotency key of an event from a standard format whose ids are unique only within
 * their sender's source (CloudEvents `source` + `id`, OTLP `service.name` + `log.record.uid`).
 */
import { createHash } from 'node:crypto';

/**
 * A fixed-length key (`ce:` + 64 hex digits): an id and a source can each be longer than an
 * idempotency key may be, and hashing the pair keeps two sources' equal ids apart.
 */
export const scopedKey = (format: 'ce' | 'otlp', source: string, id: string): string =>
  `${format}:${createHash('sha256')
    .update(JSON.stringify([source, id]))
    .digest('hex')}`;
