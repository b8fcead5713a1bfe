/**
 * @module The front's route table with what each route needs: read slots, the health check, the
 * self-metrics GET /metrics reads, and every part's face.
 */
import type { BacktestRunner } from '../actors/backtest-runner.ts';
import type { IngestStageTimings } from '../actors/ingest-stages.ts';
import type { RunningCluster } from '../actors/cluster-link.ts';
import type { Authentication } from '../auth/start-auth.ts';
import type { Config } from '../config.ts';
import { pingDatabase } from '../http/handlers/system.ts';
import { createHealthCheck } from '../http/health-check.ts';
import { createIngestCounts } from '../http/ingest-answers.ts';
import { createReadSlots } from '../http/read-slots.ts';
import { buildRoutes } from '../http/routes.ts';
import type { Route } from '../http/route-types.ts';
import { registerClusterMetrics } from '../instrumentation/prometheus/cluster-metrics.ts';
import { createSelfMetrics } from '../instrumentation/prometheus/self-metrics.ts';
import { SERVICE_VERSION } from '../version.ts';
import type { AlertingPart } from './alerting.ts';
import type { LateStomp } from './late-stomp.ts';
import type { MetricsPart } from './metrics.ts';
import type { StoragePart } from './storage.ts';

export interface RouteInputs {
  readonly config: Config;
  readonly storage: StoragePart;
  readonly metrics: MetricsPart;
  readonly cluster: RunningCluster | null;
  readonly alerting: AlertingPart;
  readonly auth: Authentication;
  readonly backtests: BacktestRunner;
  readonly stomp: LateStomp;
  /** INGEST_STAGE_TIMINGS; null: off. */
  readonly ingestStages: IngestStageTimings | null;
}

type ReadLimit = 'RULE_TEST' | 'EVENT_PAGES' | 'BACKTEST';

export function serviceRoutes(inputs: RouteInputs): readonly Route[] {
  const { config, storage, metrics, alerting, auth } = inputs;
  const { pool, batcher } = storage;
  const resets = alerting.metricsResets;
  const slots = (what: string, limit: ReadLimit, retryAfterSeconds: number) =>
    createReadSlots({
      what,
      total: config[`${limit}_MAX_RUNNING`],
      perKey: config[`${limit}_MAX_PER_KEY`],
      reservedForAdmin: config.READS_ADMIN_RESERVED,
      totalSetting: `${limit}_MAX_RUNNING`,
      perKeySetting: `${limit}_MAX_PER_KEY`,
      retryAfterSeconds,
    });
  const ingestCounts = createIngestCounts();
  return buildRoutes({
    authentication: config.VIGIL_AUTH,
    hasher: auth.hasher,
    reloadKeys: () => auth.store?.reload() ?? Promise.resolve(),
    batcher,
    pool,
    replays: storage.replays,
    pages: storage.pages,
    ruleTestSlots: slots('PATTERN rule tests with a replay', 'RULE_TEST', 2),
    pageSlots: slots('event page reads', 'EVENT_PAGES', 1),
    exportMaxRows: config.EVENT_EXPORT_MAX_ROWS,
    searchCountMs: config.EVENT_SEARCH_COUNT_MS,
    tail: inputs.stomp,
    backtestSlots: slots('backtests', 'BACKTEST', 5),
    health: createHealthCheck({
      probe: () => pingDatabase(pool, config.DB_QUERY_TIMEOUT_MS),
      maxAgeMs: config.HEALTH_CACHE_MS,
      now: () => performance.now(),
    }),
    batchMaxEvents: config.BATCH_MAX_EVENTS,
    maxBodyBytes: config.MAX_BODY_BYTES,
    ...(config.OTLP_EVENT_TYPE_ATTRIBUTE === undefined
      ? {}
      : { otlpEventTypeAttribute: config.OTLP_EVENT_TYPE_ATTRIBUTE }),
    eventMaxFutureMs: config.EVENTS_MAX_FUTURE_HOURS * 3_600_000,
    maxRules: config.MAX_RULES,
    metrics: metrics.actor,
    ...(resets === null ? {} : { resetEverywhere: () => resets.resetEverywhere() }),
    contactPoints: alerting.contactPoints,
    // The change is committed either way; a failed reload is logged and retried by ruleSync.
    onRuleChanged: (id) => alerting.ruleSync.changed(id),
    onAcknowledged: (alert) => alerting.alertSink.acknowledged(alert),
    backtests: inputs.backtests,
    backtestBudgetMs: config.BACKTEST_TIME_BUDGET_MS,
    evaluationMs: config.RULE_EVALUATION_MS,
    metricsLimits: {
      maxEventTypes: config.METRICS_MAX_EVENT_TYPES,
      maxSources: config.METRICS_MAX_SOURCES,
      maxTrackedUsers: config.METRICS_MAX_TRACKED_USERS,
    },
    ingestCounts,
    ingestStages: inputs.ingestStages,
    selfMetrics: selfMetricsOf(inputs, ingestCounts),
    scrapeToken: config.METRICS_SCRAPE_TOKEN,
  });
}

/** GET /metrics (Prometheus). The cluster code adds its own with selfMetrics.register(). */
function selfMetricsOf(
  { config, storage, metrics, cluster, alerting, stomp }: RouteInputs,
  ingestCounts: ReturnType<typeof createIngestCounts>,
) {
  const selfMetrics = createSelfMetrics({
    ingestCounts,
    batcher: storage.batcher,
    queueLimits: { events: config.INGEST_QUEUE_MAX, bytes: config.INGEST_QUEUE_MAX_BYTES },
    metrics: metrics.actor,
    now: () => performance.now(),
    pool: storage.pool,
    // Nothing scrapes before the server listens, and the endpoint is attached by then.
    stomp: () => stomp.endpoint().stats(),
    notifications: alerting.notificationCounts,
    notifyQueue: () => alerting.limiter.stats(),
    version: SERVICE_VERSION,
  });
  if (cluster !== null) registerClusterMetrics(selfMetrics, cluster, alerting.leadership);
  return selfMetrics;
}
