/**
 * @module Composition root (main thread): database (embedded or DATABASE_URL), migrations, the
 * storage pool, group commit and the HTTP front; returns `{ port, stop }` for main, tests and
 * benches alike.
 */
import { randomUUID } from 'node:crypto';
import { createIngestBatcher } from './actors/ingest-batcher.ts';
import { startIdempotencyPruner } from './actors/idempotency-pruner.ts';
import { startMetricsActor, type RestartTimers } from './actors/metrics-actor-client.ts';
import { startRetentionJob } from './actors/retention-job.ts';
import { seedNewestEvents } from './actors/newest-events-seed.ts';
import { backfillAnomalies } from './actors/anomaly-backfill.ts';
import { startStoragePool } from './actors/storage-pool.ts';
import { startReadsPool } from './actors/reads-pool.ts';
import { startCluster } from './actors/cluster-link.ts';
import type { Config } from './config.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded-postgres.ts';
import { migrateUp } from './db/migrate.ts';
import { createConnectionLimit } from './http/connection-limit.ts';
import { createUnauthenticatedPool } from './stomp/unauthenticated-pool.ts';
import { pingDatabase } from './http/handlers/system.ts';
import { createHealthCheck } from './http/health-check.ts';
import { createReadSlots } from './http/read-slots.ts';
import { loadDashboard } from './dashboard/assets.ts';
import { serveDashboard } from './dashboard/serve.ts';
import { buildApp, listen } from './http/server.ts';
import { buildRoutes } from './http/routes.ts';
import { createBacktestRunner } from './actors/backtest-runner.ts';
import { createLogger, redactUrlPasswords, type Logger } from './log.ts';
import { createAlertSink } from './alerting/alert-sink.ts';
import { startAuthentication } from './auth/start-auth.ts';
import { stompAuthenticator } from './stomp/stomp-auth.ts';
import { originPolicy } from './http/origins.ts';
import { createRuleSync } from './alerting/rule-sync.ts';
import { startLeadership, type Leadership } from './cluster/leadership.ts';
import { watchMetricsResets } from './cluster/metrics-reset-watch.ts';
import { registerClusterMetrics } from './instrumentation/prometheus/cluster-metrics.ts';
import {
  CLUSTER_RELOAD_MS,
  createContactPointDirectory,
  RELOAD_MS as CONTACT_POINTS_RELOAD_MS,
} from './notify/contact-point-directory.ts';
import { deliverAlert } from './notify/deliver.ts';
import { createDeliveryLimiter } from './notify/delivery-limiter.ts';
import { notifyOptionsFrom } from './notify/notify-options.ts';
import { createRequestGate } from './request-gate.ts';
import { attachStomp } from './stomp/endpoint.ts';
import type { EventTail } from './domain/event-search/tail-records.ts';
import { REAL_TIMERS, type Timers } from './timers.ts';
import { createIngestCounts } from './http/ingest-answers.ts';
import { NotificationCounts } from './notify/notification-counts.ts';
import { createSelfMetrics } from './instrumentation/prometheus/self-metrics.ts';
import { SERVICE_VERSION } from './version.ts';
import { startupTimings, type StartupTimings } from './startup-timings.ts';

/**
 * How long the storage threads may take to load and answer a first ping at start (their code is
 * compiled on load under tsx, and the machine may be busy); past it the start fails, saying so.
 */
const STORAGE_START_DEADLINE_MS = 60_000;

export interface RunningService {
  readonly port: number;
  /** The database's URL with its password replaced by `****` (it may be shown or logged). */
  readonly databaseUrl: string;
  /** Drains and stops everything; resolves when the last database write has finished. */
  stop(): Promise<void>;
}

/** Timers a test may inject into the running service, to fire them itself; absent: the real ones. */
export interface ServiceHooks {
  /** The metrics actor's restart back-off after failed starts. */
  readonly restartTimers?: RestartTimers;
  /** The /topic/metrics broadcast tick. */
  readonly broadcastTimers?: Pick<Timers, 'setInterval' | 'clearInterval'>;
  /** The periodic reload of the contact points (changes made through another instance). */
  readonly contactPointTimers?: Pick<Timers, 'setInterval' | 'clearInterval'>;
  /** The periodic pruning of idempotency keys past their window, and its clock (epoch ms). */
  readonly idempotencyTimers?: Pick<Timers, 'setInterval' | 'clearInterval'>;
  readonly idempotencyClock?: () => number;
  /** The retention job's period (partitions, EVENTS_ and ALERTS_RETENTION_DAYS) and its clock. */
  readonly retentionTimers?: Pick<Timers, 'setInterval' | 'clearInterval'>;
  readonly retentionClock?: () => number;
}

export async function startService(
  config: Config,
  log: Logger = createLogger(config.LOG_LEVEL, 'main'),
  hooks: ServiceHooks = {},
): Promise<RunningService> {
  const timings = startupTimings();
  let embedded: EmbeddedDatabase | null = null;
  if (config.DATABASE_URL === undefined) {
    embedded = await startEmbeddedPostgres(config.VIGIL_DATA_DIR, config.EMBEDDED_PG_PORT, log);
  }
  timings.lap('postgres');
  const databaseUrl = config.DATABASE_URL ?? (embedded as EmbeddedDatabase).url;
  // What start-up has started, undone newest first when a later step fails (a taken port, say):
  // an embedded PostgreSQL left behind would outlive the failed process.
  const started: (() => Promise<void> | void)[] = [];
  if (embedded !== null) started.push(() => embedded.stop());
  try {
    return await startOn(config, log, databaseUrl, started, embedded, hooks, timings);
  } catch (error) {
    for (const undo of started.reverse()) {
      try {
        await undo();
      } catch (undoError) {
        log.warn({ err: undoError }, 'start-up failed, and so did undoing one of its steps');
      }
    }
    throw error;
  }
}

/** Everything after the database: migrations, threads, routes, and the listening port. */
async function startOn(
  config: Config,
  log: Logger,
  databaseUrl: string,
  started: (() => Promise<void> | void)[],
  embedded: EmbeddedDatabase | null,
  hooks: ServiceHooks,
  timings: StartupTimings,
): Promise<RunningService> {
  // Compressed on libuv's threads while the rest starts; awaited before the routes are served.
  const dashboardLoad = loadDashboard();
  dashboardLoad.catch(() => undefined); // awaited below, unless an earlier step fails
  await migrateUp(databaseUrl, config.DATABASE_SCHEMA, log);
  timings.lap('migrations');

  const metricsChannel = `vigil-metrics-${randomUUID()}`;
  // The actor listens before any storage worker can post a committed batch.
  const metrics = await startMetricsActor(
    {
      metricsChannel,
      // In a cluster, only once this instance holds the rule leader lease (startLeadership).
      evaluating: config.NATS_URL === undefined,
      refreshMs: config.METRICS_REFRESH_MS,
      evaluationMs: config.RULE_EVALUATION_MS,
      evaluationCpuStats: config.EVALUATION_CPU_STATS,
      logLevel: config.LOG_LEVEL,
      maxEventTypes: config.METRICS_MAX_EVENT_TYPES,
      maxSources: config.METRICS_MAX_SOURCES,
      maxTrackedUsers: config.METRICS_MAX_TRACKED_USERS,
      // Issue 33; not yet in cluster mode (a peer's batch carries no event ids to mark).
      checkpoint:
        config.NATS_URL === undefined
          ? {
              databaseUrl,
              schema: config.DATABASE_SCHEMA,
              owner: 'single',
              intervalMs: config.METRICS_CHECKPOINT_SECONDS * 1000,
            }
          : null,
    },
    log,
    { timers: hooks.restartTimers },
  );
  // Undone before the pool closes, as stop() does: an alert fired in between would find no pool.
  let metricsStopped: Promise<void> | null = null;
  const stopMetrics = (): Promise<void> => (metricsStopped ??= metrics.stop());
  started.push(stopMetrics);
  // Cluster mode only (NATS_URL): null otherwise, and nothing below changes.
  const cluster = await startCluster(config, databaseUrl, metricsChannel, log);
  if (cluster !== null) {
    started.push(() => cluster.stop());
    cluster.onView((view) => {
      metrics.clusterView(view).catch(() => undefined); // a restarting actor gets it again
      // Rules on counts hold (DEGRADED) while a live instance's batches are missing.
      metrics.setViewComplete(view.complete);
    });
  }
  const pool = startStoragePool({
    threads: config.STORAGE_WORKERS,
    // The batcher bounds events; this bounds tasks (reads included) a little above it.
    maxQueuedTasks: config.INGEST_QUEUE_MAX + 1000,
    closeTimeoutMs: config.SHUTDOWN_GRACE_MS,
    timeoutMs: config.DB_QUERY_TIMEOUT_MS,
    workerData: {
      databaseUrl,
      schema: config.DATABASE_SCHEMA,
      connections: config.DB_CONNECTIONS_PER_WORKER,
      queryTimeoutMs: config.DB_QUERY_TIMEOUT_MS,
      logLevel: config.LOG_LEVEL,
      metricsChannel,
      ...(cluster === null ? {} : { cluster: cluster.storage }),
    },
  });
  started.push(async () => {
    await stopMetrics();
    await pool.close();
  });
  const batcher = createIngestBatcher(pool, {
    batchMax: config.INGEST_BATCH_MAX,
    batchWaitMs: config.INGEST_BATCH_WAIT_MS,
    queueMax: config.INGEST_QUEUE_MAX,
    queueMaxBytes: config.INGEST_QUEUE_MAX_BYTES,
    maxInFlight: config.STORAGE_WORKERS * config.DB_CONNECTIONS_PER_WORKER,
    writeTimeoutMs: config.DB_QUERY_TIMEOUT_MS,
    eventDetail: () => metrics.eventDetail(),
  });
  // Expensive reads on threads, connections and queues of their own, one pool for rule-test
  // replays (CPU-heavy, lowest priority) and one for event pages: neither can wait for or hold what
  // ingest needs, nor a replay delay a page (docs/security.md, Limits).
  const readsPool = (background: boolean, maxQueuedTasks: number, timeoutMs: number) =>
    startReadsPool({
      threads: config.READS_WORKERS,
      maxQueuedTasks,
      closeTimeoutMs: config.SHUTDOWN_GRACE_MS,
      timeoutMs,
      workerData: {
        databaseUrl,
        schema: config.DATABASE_SCHEMA,
        connections: config.READS_CONNECTIONS_PER_WORKER,
        queryTimeoutMs: config.DB_QUERY_TIMEOUT_MS,
        logLevel: config.LOG_LEVEL,
        background,
      },
    });
  // A replay pauses between its pages (half its time, workers/reads.worker.ts): each page still
  // has DB_QUERY_TIMEOUT_MS, the whole replay three times that.
  const replays = readsPool(true, config.RULE_TEST_MAX_RUNNING, 3 * config.DB_QUERY_TIMEOUT_MS);
  started.push(() => replays.close());
  const pages = readsPool(false, config.EVENT_PAGES_MAX_RUNNING, config.DB_QUERY_TIMEOUT_MS);
  started.push(() => pages.close());
  const notStarted = await pool.started(STORAGE_START_DEADLINE_MS);
  if (notStarted !== null) throw new Error(`the storage workers did not start: ${notStarted}`);
  timings.lap('threads');
  const pruner = startIdempotencyPruner(pool, {
    windowHours: config.IDEMPOTENCY_WINDOW_HOURS,
    log,
    timers: hooks.idempotencyTimers,
    clock: hooks.idempotencyClock,
  });
  started.push(() => pruner.stop());
  const retention = startRetentionJob(pool, {
    eventsRetentionDays: config.EVENTS_RETENTION_DAYS ?? null,
    alertsRetentionDays: config.ALERTS_RETENTION_DAYS ?? null,
    log,
    timers: hooks.retentionTimers,
    clock: hooks.retentionClock,
  });
  started.push(() => retention.stop());
  const contactPoints = createContactPointDirectory(
    pool,
    log,
    hooks.contactPointTimers,
    config.NATS_URL === undefined ? CONTACT_POINTS_RELOAD_MS : CLUSTER_RELOAD_MS,
  );
  started.push(() => contactPoints.stop());
  const unloaded = await contactPoints.reload();
  if (unloaded !== null) throw new Error(`could not load the contact points: ${unloaded}`);
  const notify = notifyOptionsFrom(config);
  const limiter = createDeliveryLimiter(
    { concurrency: config.NOTIFY_CONCURRENCY, queueMax: config.NOTIFY_QUEUE_MAX },
    { log },
  );
  // Until the STOMP endpoint exists nobody can be subscribed: transitions are stored only.
  let publishAlert = (_json: string): void => {};
  /** The STOMP endpoint once attached (after the routes): the live tail of /topic/events. */
  let eventTail: EventTail | null = null;
  const notificationCounts = new NotificationCounts();
  // Cluster mode: set once the lease loop starts; until then this instance is not the leader.
  let leadership: Leadership | null = null;
  const alertSink = createAlertSink({
    pool,
    publish: (json) => publishAlert(json),
    deliver: (alert, rule) => deliverAlert(alert, rule, notify, limiter, contactPoints),
    log,
    notificationCounts,
    ...(config.NATS_URL === undefined
      ? {}
      : {
          writer: () => leadership?.writer() ?? 'not-leader',
          onFenced: () => leadership?.fenced(),
        }),
  });
  // Listening before the first rule load: it may resolve incidents of rules no longer ACTIVE.
  metrics.onAlert((transition) => alertSink.accept(transition));
  // Before the first rule load: it makes the actor ask for the producers its rules watch.
  seedNewestEvents(pool, metrics, log);
  backfillAnomalies(pool, metrics, log);
  const ruleSync = createRuleSync(pool, metrics, log);
  started.push(() => ruleSync.stop());
  await ruleSync.changed();
  leadership = startLeadership(config, {
    pool,
    metrics,
    ruleSync,
    redeliver: () => alertSink.redeliver(),
    log,
    ...(cluster === null ? {} : { instanceId: cluster.instanceId }),
  });
  const leading = leadership;
  if (leading !== null) started.push(() => leading.stop());
  // Alone: what a previous process stored and did not get to notify is sent now.
  else void alertSink.redeliver();
  // Cluster mode: a reset made through any instance resets this one too (docs/cluster.md).
  const metricsResets =
    config.NATS_URL === undefined ? null : watchMetricsResets(pool, metrics, log);
  if (metricsResets !== null) started.push(() => metricsResets.stop());
  const auth = await startAuthentication(config, pool, log);
  started.push(() => auth.stop());
  const gate = createRequestGate();
  const backtests = createBacktestRunner({
    databaseUrl,
    schema: config.DATABASE_SCHEMA,
    queryTimeoutMs: config.DB_QUERY_TIMEOUT_MS,
    logLevel: config.LOG_LEVEL,
    log,
  });
  const slots = (
    what: string,
    total: `${'RULE_TEST' | 'EVENT_PAGES' | 'BACKTEST'}_MAX_RUNNING`,
    perKey: `${'RULE_TEST' | 'EVENT_PAGES' | 'BACKTEST'}_MAX_PER_KEY`,
    retryAfterSeconds: number,
  ) =>
    createReadSlots({
      what,
      total: config[total],
      perKey: config[perKey],
      reservedForAdmin: config.READS_ADMIN_RESERVED,
      totalSetting: total,
      perKeySetting: perKey,
      retryAfterSeconds,
    });
  started.push(() => backtests.stop());
  const ingestCounts = createIngestCounts();
  // GET /metrics (Prometheus). The cluster code adds its own with selfMetrics.register().
  const selfMetrics = createSelfMetrics({
    ingestCounts,
    batcher,
    queueLimits: { events: config.INGEST_QUEUE_MAX, bytes: config.INGEST_QUEUE_MAX_BYTES },
    metrics,
    now: () => performance.now(),
    pool,
    // Attached below, once the app exists; nothing scrapes before the server listens.
    stomp: () => stomp.stats(),
    notifications: notificationCounts,
    notifyQueue: () => limiter.stats(),
    version: SERVICE_VERSION,
  });
  if (cluster !== null) registerClusterMetrics(selfMetrics, cluster, leadership);
  const routes = buildRoutes({
    authentication: config.VIGIL_AUTH,
    hasher: auth.hasher,
    reloadKeys: () => auth.store?.reload() ?? Promise.resolve(),
    batcher,
    pool,
    replays,
    pages,
    ruleTestSlots: slots(
      'PATTERN rule tests with a replay',
      'RULE_TEST_MAX_RUNNING',
      'RULE_TEST_MAX_PER_KEY',
      2,
    ),
    pageSlots: slots('event page reads', 'EVENT_PAGES_MAX_RUNNING', 'EVENT_PAGES_MAX_PER_KEY', 1),
    exportMaxRows: config.EVENT_EXPORT_MAX_ROWS,
    searchCountMs: config.EVENT_SEARCH_COUNT_MS,
    tail: {
      tailing: () => eventTail?.tailing() ?? false,
      publishEvents: (events) => eventTail?.publishEvents(events),
    },
    backtestSlots: slots('backtests', 'BACKTEST_MAX_RUNNING', 'BACKTEST_MAX_PER_KEY', 5),
    health: createHealthCheck({
      probe: () => pingDatabase(pool, config.DB_QUERY_TIMEOUT_MS),
      maxAgeMs: config.HEALTH_CACHE_MS,
      now: () => performance.now(),
    }),
    batchMaxEvents: config.BATCH_MAX_EVENTS,
    eventMaxFutureMs: config.EVENTS_MAX_FUTURE_HOURS * 3_600_000,
    maxRules: config.MAX_RULES,
    metrics,
    ...(metricsResets === null ? {} : { resetEverywhere: () => metricsResets.resetEverywhere() }),
    contactPoints,
    // The change is committed either way; a failed reload is logged and retried by ruleSync.
    onRuleChanged: (id) => ruleSync.changed(id),
    onAcknowledged: (alert) => alertSink.acknowledged(alert),
    backtests,
    backtestBudgetMs: config.BACKTEST_TIME_BUDGET_MS,
    evaluationMs: config.RULE_EVALUATION_MS,
    metricsLimits: {
      maxEventTypes: config.METRICS_MAX_EVENT_TYPES,
      maxSources: config.METRICS_MAX_SOURCES,
      maxTrackedUsers: config.METRICS_MAX_TRACKED_USERS,
    },
    ingestCounts,
    selfMetrics,
    scrapeToken: config.METRICS_SCRAPE_TOKEN,
  });
  // One count for HTTP requests in progress and WebSockets: MAX_CONNECTIONS bounds both together.
  const connections = createConnectionLimit(config.MAX_CONNECTIONS);
  const origins = originPolicy(config.VIGIL_ALLOWED_ORIGINS);
  const app = buildApp(routes, {
    maxBodyBytes: config.MAX_BODY_BYTES,
    log,
    gate,
    connections,
    keys: auth.store,
    origins,
  });
  timings.skip();
  const dashboard = await dashboardLoad;
  if (!dashboard.built) log.warn('the dashboard is not built (npm run build): / explains');
  serveDashboard(app, dashboard, log);
  timings.lap('assets');
  const stomp = attachStomp(app, {
    serverVersion: SERVICE_VERSION,
    connections,
    unauthenticated: createUnauthenticatedPool({
      max: config.MAX_UNAUTH_SOCKETS,
      maxPerAddress: config.MAX_UNAUTH_SOCKETS_PER_IP,
    }),
    log,
    currentMetricsJson: () => metrics.snapshotJson(),
    tailEventsPerSecond: config.STOMP_TAIL_MAX_PER_SECOND,
    originAllowed: (origin, host) => origins.allowed(origin, host),
    ...(auth.store === null ? {} : { authenticate: stompAuthenticator(auth.store) }),
  });
  const keys = auth.store;
  // A revoked or expired key's live sessions end at the next reload (within about a second).
  keys?.onReload(() => stomp.recheckKeys((principal) => keys.holds(principal, Date.now())));
  publishAlert = (json) => stomp.publish('/topic/alerts', json);
  eventTail = stomp;
  // One serialisation per tick: the actor's latest snapshot goes to every subscriber as is.
  const broadcastTimers = hooks.broadcastTimers ?? REAL_TIMERS;
  const broadcast = broadcastTimers.setInterval(() => {
    // A timer's throw would end the process: logged, and the next tick tries again.
    try {
      stomp.publish('/topic/metrics', metrics.snapshotJson());
    } catch (error) {
      log.error({ err: error }, 'the /topic/metrics broadcast failed; retrying at the next tick');
    }
  }, config.METRICS_BROADCAST_MS);
  started.push(() => broadcastTimers.clearInterval(broadcast));
  const server = await listen(app, config.HOST, config.PORT);
  // How long start-up took, and where the time went (docs/benchmarks.md: start-up).
  log.info({ port: server.port, host: config.HOST, ...timings.report() }, 'vigil listening');

  let stopping: Promise<void> | null = null;
  const stop = async (): Promise<void> => {
    log.info('draining: new requests get 503 SHUTTING_DOWN');
    server.closeListener();
    broadcastTimers.clearInterval(broadcast);
    stomp.closeAll();
    await gate.close();
    await backtests.stop();
    await batcher.drain();
    pruner.stop();
    retention.stop();
    // Evaluation stops before the last alerts are stored, so none arrives after the pool closed.
    ruleSync.stop();
    contactPoints.stop();
    metricsResets?.stop();
    await metrics.stop();
    await alertSink.drain();
    // After the last fenced write; the lease is released, so another instance takes over at once.
    await leadership?.stop();
    await auth.stop();
    await Promise.all([replays.close(), pages.close()]);
    await pool.close();
    // After the pool: the last committed batches are published (or left to the relay).
    await cluster?.stop();
    await embedded?.stop();
    log.info('stopped');
  };
  return {
    port: server.port,
    databaseUrl: redactUrlPasswords(databaseUrl),
    stop: () => (stopping ??= stop()),
  };
}
