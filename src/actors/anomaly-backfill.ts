/**
 * @module Answers the metrics actor's `anomaly-backfill` notices (front thread): reads each ANOMALY
 * series' stored history on the storage pool, one series at a time (so that a thousand new series
 * do not take every storage worker from ingest), and hands it to the actor. A failed read is
 * logged and answered with no values: that series learns from the live metrics only.
 */
import type { BackfillRequest } from '../domain/rules/kinds/anomaly/anomaly-rules.ts';
import type { Logger } from '../log.ts';
import type { MetricsActor } from './metrics-actor-client.ts';
import type { StoragePool } from './storage-pool.ts';

export function backfillAnomalies(pool: StoragePool, metrics: MetricsActor, log: Logger): void {
  let queue: Promise<void> = Promise.resolve();
  const one = async (request: BackfillRequest): Promise<void> => {
    const result = await pool.run('anomalyHistory', request).catch((error: unknown) => {
      log.warn({ err: error, ruleId: request.ruleId }, 'could not read an ANOMALY rule history');
      return null;
    });
    if (result !== null && !result.ok)
      log.warn(
        { ruleId: request.ruleId, message: result.message },
        'could not read an ANOMALY rule history',
      );
    const values = result?.ok === true ? result.value : null;
    await metrics.seedAnomaly({ ruleId: request.ruleId, generation: request.generation, values });
  };
  metrics.onAnomalyBackfill((requests) => {
    for (const request of requests) {
      queue = queue
        .then(() => one(request))
        .catch((error: unknown) =>
          log.warn({ err: error, ruleId: request.ruleId }, 'could not seed an ANOMALY rule'),
        );
    }
  });
}
