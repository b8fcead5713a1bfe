/**
 * Event bodies for the metrics and rules benches: a seeded PRNG spreads events over N types,
 * sources and users (uniform), mostly INFO with a few errors, so every run sends the same traffic.
 */

import { prng } from '../../test/support/shared.ts';

export interface EventSpread {
  readonly types: number;
  readonly sources: number;
  readonly users: number;
}

export interface BenchEvent {
  readonly eventType: string;
  readonly source: string;
  readonly userId: string;
  readonly severity: 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';
  readonly tags: { readonly region: string };
}

export { prng };

/** The names the benches use, so rules can refer to keys the traffic really has. */
export const typeName = (i: number): string => `type-${i}`;
export const sourceName = (i: number): string => `source-${i}`;
export const userName = (i: number): string => `user-${i}`;

const REGIONS = ['eu-west-1', 'us-east-1', 'ap-south-1'];

/** An endless stream of events with the given spread. */
export function eventStream(spread: EventSpread, seed: number): () => BenchEvent {
  const random = prng(seed);
  return () => {
    const roll = random();
    return {
      eventType: typeName(Math.floor(random() * spread.types)),
      source: sourceName(Math.floor(random() * spread.sources)),
      userId: userName(Math.floor(random() * spread.users)),
      severity: roll < 0.9 ? 'INFO' : roll < 0.97 ? 'WARNING' : roll < 0.995 ? 'ERROR' : 'CRITICAL',
      tags: { region: REGIONS[Math.floor(random() * REGIONS.length)] as string },
    };
  };
}

/** A POST /api/v1/events/batch body of `count` events from `next`. */
export function batchBody(next: () => BenchEvent, count: number): string {
  return JSON.stringify({ events: Array.from({ length: count }, next) });
}
