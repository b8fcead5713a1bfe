/**
 * @module The `where` conditions of a step, compiled once per rule into one function of the
 * event: fields are resolved to readers up front, so matching an event walks no config.
 */
import type { DetailedMetricEvent } from '../../../event.ts';
import type { PatternCondition, PatternValue } from './pattern-config.ts';

export type EventPredicate = (event: DetailedMetricEvent) => boolean;
type Reader = (event: DetailedMetricEvent) => unknown;

function readerOf(field: string): Reader {
  switch (field) {
    case 'eventType':
      return (e) => e.eventType;
    case 'source':
      return (e) => e.source;
    case 'userId':
      return (e) => e.userId;
    case 'sessionId':
      return (e) => e.sessionId;
    case 'severity':
      return (e) => e.severity;
  }
  const [head, ...path] = field.split('.');
  if (head === 'tags') {
    const key = path[0] ?? '';
    return (e) => (Object.hasOwn(e.tags, key) ? e.tags[key] : undefined);
  }
  return (e) => {
    let value: unknown = e.metadata;
    for (const part of path) {
      if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part))
        return undefined;
      value = (value as Record<string, unknown>)[part];
    }
    return value;
  };
}

/** One comparison; a missing field equals nothing (so NOT_EQUALS holds) and orders with nothing. */
function test(condition: PatternCondition): EventPredicate {
  const read = readerOf(condition.field);
  const v: PatternValue = condition.value;
  switch (condition.operator) {
    case 'EQUALS':
      return (e) => read(e) === v;
    case 'NOT_EQUALS':
      return (e) => read(e) !== v;
    case 'GREATER_THAN':
      return (e) => {
        const x = read(e);
        return typeof x === 'number' && x > (v as number);
      };
    case 'GREATER_THAN_OR_EQUAL':
      return (e) => {
        const x = read(e);
        return typeof x === 'number' && x >= (v as number);
      };
    case 'LESS_THAN':
      return (e) => {
        const x = read(e);
        return typeof x === 'number' && x < (v as number);
      };
    case 'LESS_THAN_OR_EQUAL':
      return (e) => {
        const x = read(e);
        return typeof x === 'number' && x <= (v as number);
      };
  }
}

/** The event is of `eventType` and meets every condition. */
export function predicateOf(eventType: string, where: readonly PatternCondition[]): EventPredicate {
  const tests = where.map(test);
  if (tests.length === 0) return (e) => e.eventType === eventType;
  return (e) => e.eventType === eventType && tests.every((t) => t(e));
}

/** The event's partition key, or null when it has none (the event then takes part in no sequence). */
export function partitionReader(partitionBy: string): (e: DetailedMetricEvent) => string | null {
  const read = readerOf(partitionBy);
  return (e) => {
    const key = read(e);
    return typeof key === 'string' && key !== '' ? key : null;
  };
}
