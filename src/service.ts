/**
 * @module Composition root (main thread): starts each part in order (src/components/), each
 * pushing its stop on one stack, which undoes a failed start and shuts the service down newest
 * first; returns `{ port, stop }` for main, tests and benches alike.
 */
import type { RestartTimers } from './actors/metrics-actor-client.ts';
import { startAuthentication } from './auth/start-auth.ts';
import { startAlerting } from './components/alerting.ts';
import { startClusterPart } from './components/cluster.ts';
import { startDashboardLoad } from './components/dashboard.ts';
import { migrateDatabase, startDatabase } from './components/database.ts';
import { startFront } from './components/front.ts';
import { startJobs } from './components/jobs.ts';
import { lateStomp } from './components/late-stomp.ts';
import { startMetrics } from './components/metrics.ts';
import { createStopStack, type StopStack } from './components/stop-stack.ts';
import { startStorage } from './components/storage.ts';
import type { Config } from './config.ts';
import { createLogger, redactUrlPasswords, type Logger } from './log.ts';
import { resolveIdentity } from './nats/identity.ts';
import { startupTimings, type StartupTimings } from './startup-timings.ts';
import type { Timers } from './timers.ts';

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
  const stack = createStopStack(log);
  try {
    return await startParts(config, log, hooks, stack, timings);
  } catch (error) {
    // A taken port, say: an embedded PostgreSQL or a thread left behind would outlive the process.
    await stack.stopAll();
    throw error;
  }
}

/**
 * Each part's stop is pushed where the shutdown needs it, so the parts start in the reverse of
 * that order wherever nothing forces otherwise: auth before alerting (its keys outlive the lease),
 * the periodic jobs after it (they stop as soon as ingest has drained).
 */
async function startParts(
  config: Config,
  log: Logger,
  hooks: ServiceHooks,
  stack: StopStack,
  timings: StartupTimings,
): Promise<RunningService> {
  const databaseUrl = await startDatabase(config, log, stack, timings);
  const dashboardLoad = startDashboardLoad();
  await migrateDatabase(config, databaseUrl, log, timings);
  // Resolved first in a cluster: the instance id also names the metrics actor's checkpoint.
  const identity =
    config.NATS_URL === undefined ? null : await resolveIdentity(config, databaseUrl, log);
  const metrics = await startMetrics(
    config,
    databaseUrl,
    identity,
    hooks.restartTimers,
    log,
    stack,
  );
  const cluster = await startClusterPart(config, databaseUrl, identity, metrics, log, stack);
  const storage = await startStorage(config, databaseUrl, metrics, cluster, stack, timings);
  const auth = await startAuthentication(config, storage.pool, log);
  stack.push('authentication', () => auth.stop());
  const stomp = lateStomp();
  const alerting = await startAlerting(
    {
      config,
      pool: storage.pool,
      metrics,
      cluster,
      publishAlert: (json) => stomp.publish('/topic/alerts', json),
      contactPointTimers: hooks.contactPointTimers,
      log,
    },
    stack,
  );
  startJobs(config, storage.pool, hooks, log, stack);
  const port = await startFront(
    {
      config,
      databaseUrl,
      storage,
      metrics,
      cluster,
      alerting,
      auth,
      dashboardLoad,
      broadcastTimers: hooks.broadcastTimers,
      stomp,
      log,
      timings,
    },
    stack,
  );
  // How long start-up took, and where the time went (docs/benchmarks.md: start-up).
  log.info({ port, host: config.HOST, ...timings.report() }, 'vigil listening');
  let stopping: Promise<void> | null = null;
  const stop = async (): Promise<void> => {
    log.info('draining: new requests get 503 SHUTTING_DOWN');
    await stack.stopAll();
    log.info('stopped');
  };
  return {
    port,
    databaseUrl: redactUrlPasswords(databaseUrl),
    stop: () => (stopping ??= stop()),
  };
}
