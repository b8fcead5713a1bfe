/**
 * @module What is said about an ANOMALY rule besides its verdict: its condition as one line (stored
 * on each alert), the rule test's warnings (a filter key no event used) and recommendations (the
 * history there is to learn from, settings that make a noisy or blind band).
 */
import type { WindowedMetrics } from '../../../metrics/windows/window-reads.ts';
import { COUNT_METRICS, type AnomalyConfig } from './anomaly-config.ts';
import { seriesName } from './anomaly-explanation.ts';
import type { AnomalyStatus } from './anomaly-rules.ts';

/** `eventRate[eventType=checkout] below the robust band ±3σ in ≥ 80% of 15 min [5-min buckets]`. */
export function anomalyConditionText(config: AnomalyConfig): string {
  const algorithm =
    config.algorithm === 'seasonal'
      ? `seasonal (${config.seasonality ?? 'daily'}, ${config.timezone ?? 'UTC'})`
      : config.algorithm;
  const side = config.direction === 'both' ? 'outside' : config.direction;
  return `${seriesName(config)} ${side} the ${algorithm} band ±${config.bounds}σ in ≥ ${Math.round(config.minFraction * 100)}% of ${config.alertWindowMinutes} min [${config.bucketMinutes}-min buckets]`;
}

/** A filter key no event has used since start: probably misspelt. */
export function anomalyWarnings(config: AnomalyConfig, metrics: WindowedMetrics): string[] {
  if (config.eventType !== undefined && !metrics.hasKey('eventsByType', config.eventType))
    return [
      `No event has used the eventType '${config.eventType}' since start or the last reset: check its spelling`,
    ];
  if (config.source !== undefined && !metrics.hasKey('eventsBySource', config.source))
    return [
      `No event has used the source '${config.source}' since start or the last reset: check its spelling`,
    ];
  return [];
}

/**
 * Recommendations: how many buckets of history there are to learn from (the live series' own
 * status for an ACTIVE rule, else the simulation's), and settings that blind or deafen the band.
 */
export function anomalyRecommendations(
  config: AnomalyConfig,
  status: AnomalyStatus,
  live: boolean,
): string[] {
  const out: string[] = [];
  const needed = Math.ceil(config.minHistoryMinutes / config.bucketMinutes);
  const where = live
    ? 'this rule has learnt'
    : 'the live metrics (at most the last 24 h since the service started) hold';
  out.push(
    `${where} ${status.bucketsSeen} buckets of ${config.bucketMinutes} min (${status.historyMinutes} min of history); minHistoryMinutes needs ${needed}` +
      (live
        ? ''
        : ': once ACTIVE the rule back-fills its baseline from the stored events, and stays LEARNING until it is covered'),
  );
  if (
    config.algorithm !== 'seasonal' &&
    config.bucketMinutes * 60 < 1440 &&
    config.direction !== 'above'
  )
    out.push(
      `A ${config.algorithm} baseline does not know the time of day: a nightly trough looks like a drop. Use algorithm 'seasonal' (seasonality daily) for traffic with a daily rhythm`,
    );
  if (
    COUNT_METRICS.includes(config.metric) &&
    config.direction !== 'above' &&
    config.minExpected === 0
  )
    out.push(
      `Set minExpected (e.g. 10 events per bucket): a quiet series is judged too, and its band is mostly noise`,
    );
  if (config.alertWindowMinutes === config.bucketMinutes)
    out.push(
      'alertWindowMinutes of a single bucket fires on one outlier: use 3 or more buckets with minFraction below 1',
    );
  return out;
}
