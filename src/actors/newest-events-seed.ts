/**
 * @module Answers the metrics actor's `watching` notices (front thread): reads the newest stored
 * events of the producers its rules watch and hands them to it, so that a producer's silence
 * survives an actor restart. A failed read is logged: those producers then count from the
 * actor's start, as if they had not sent yet.
 */
import type { Logger } from '../log.ts';
import type { MetricsActor } from './metrics-actor-client.ts';
import type { StoragePool } from './storage-pool.ts';

export function seedNewestEvents(pool: StoragePool, metrics: MetricsActor, log: Logger): void {
  metrics.onWatching((keys) => {
    const seed = async (): Promise<void> => {
      const result = await pool.run('newestEvents', keys);
      if (!result.ok) throw new Error(result.message);
      await metrics.seedLastEvents(result.value);
    };
    seed().catch((error: unknown) =>
      log.warn({ err: error }, 'could not read the newest stored events of watched producers'),
    );
  });
}
