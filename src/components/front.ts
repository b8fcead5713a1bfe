/**
 * @module The front part (the main thread): the HTTP app with its routes and the dashboard, the
 * STOMP endpoint and its 1 s broadcast, and the listening port.
 */
import { createBacktestRunner } from '../actors/backtest-runner.ts';
import { createIngestStageTimings } from '../actors/ingest-stages.ts';
import type { Authentication } from '../auth/start-auth.ts';
import type { Dashboard } from '../dashboard/assets.ts';
import { createConnectionLimit } from '../http/connection-limit.ts';
import { originPolicy } from '../http/origins.ts';
import { buildApp, listen } from '../http/server.ts';
import type { Logger } from '../log.ts';
import { createRequestGate } from '../request-gate.ts';
import type { StartupTimings } from '../startup-timings.ts';
import { attachStomp } from '../stomp/endpoint.ts';
import { stompAuthenticator } from '../stomp/stomp-auth.ts';
import { createUnauthenticatedPool } from '../stomp/unauthenticated-pool.ts';
import { REAL_TIMERS, type Timers } from '../timers.ts';
import { SERVICE_VERSION } from '../version.ts';
import { serveDashboardPart } from './dashboard.ts';
import type { LateStomp } from './late-stomp.ts';
import { serviceRoutes, type RouteInputs } from './routes.ts';
import { createStopStack, type StopStack } from './stop-stack.ts';

export interface FrontInputs extends Omit<RouteInputs, 'backtests' | 'ingestStages'> {
  readonly databaseUrl: string;
  readonly auth: Authentication;
  readonly dashboardLoad: Promise<Dashboard>;
  readonly broadcastTimers: Pick<Timers, 'setInterval' | 'clearInterval'> | undefined;
  readonly stomp: LateStomp;
  readonly log: Logger;
  readonly timings: StartupTimings;
}

/** The listening port. */
export async function startFront(inputs: FrontInputs, stack: StopStack): Promise<number> {
  const { config, log } = inputs;
  // On shutdown newest first: the listener closes, the broadcast and the STOMP sessions end,
  // requests in progress finish, then backtests, then the events already accepted are stored.
  const own = createStopStack(log);
  stack.push('front', () => own.stopAll());
  {
    own.push('ingest queue', () => inputs.storage.batcher.drain());
    const backtests = createBacktestRunner({
      databaseUrl: inputs.databaseUrl,
      schema: config.DATABASE_SCHEMA,
      queryTimeoutMs: config.DB_QUERY_TIMEOUT_MS,
      logLevel: config.LOG_LEVEL,
      log,
    });
    own.push('backtests', () => backtests.stop());
    const gate = createRequestGate();
    own.push('requests in progress', () => gate.close());
    // One count for HTTP requests in progress and WebSockets: MAX_CONNECTIONS bounds both together.
    const connections = createConnectionLimit(config.MAX_CONNECTIONS);
    const origins = originPolicy(config.VIGIL_ALLOWED_ORIGINS);
    const ingestStages = config.INGEST_STAGE_TIMINGS ? createIngestStageTimings() : null;
    const app = buildApp(serviceRoutes({ ...inputs, backtests, ingestStages }), {
      maxBodyBytes: config.MAX_BODY_BYTES,
      ingestStages,
      log,
      gate,
      connections,
      keys: inputs.auth.store,
      origins,
    });
    inputs.timings.skip();
    await serveDashboardPart(app, inputs.dashboardLoad, log, origins);
    inputs.timings.lap('assets');
    const keys = inputs.auth.store;
    const stomp = attachStomp(app, {
      serverVersion: SERVICE_VERSION,
      connections,
      unauthenticated: createUnauthenticatedPool({
        max: config.MAX_UNAUTH_SOCKETS,
        maxPerAddress: config.MAX_UNAUTH_SOCKETS_PER_IP,
      }),
      log,
      currentMetricsJson: () => inputs.metrics.actor.snapshotJson(),
      tailEventsPerSecond: config.STOMP_TAIL_MAX_PER_SECOND,
      originAllowed: (origin, host) => origins.allowed(origin, host),
      ...(keys === null ? {} : { authenticate: stompAuthenticator(keys) }),
    });
    own.push('STOMP sessions', () => stomp.closeAll());
    inputs.stomp.attach(stomp);
    // A revoked or expired key's live sessions end at the next reload (within about a second).
    keys?.onReload(() => stomp.recheckKeys((principal) => keys.holds(principal, Date.now())));
    startBroadcast(inputs, own);
    const server = await listen(app, config.HOST, config.PORT);
    own.push('listener', () => server.closeListener());
    return server.port;
  }
}

/** One serialisation per tick: the actor's latest snapshot goes to every subscriber as is. */
function startBroadcast(inputs: FrontInputs, own: StopStack): void {
  const timers = inputs.broadcastTimers ?? REAL_TIMERS;
  const broadcast = timers.setInterval(() => {
    // A timer's throw would end the process: logged, and the next tick tries again.
    try {
      inputs.stomp.publish('/topic/metrics', inputs.metrics.actor.snapshotJson());
    } catch (error) {
      inputs.log.error(
        { err: error },
        'the /topic/metrics broadcast failed; retrying at the next tick',
      );
    }
  }, inputs.config.METRICS_BROADCAST_MS);
  own.push('metrics broadcast', () => timers.clearInterval(broadcast));
}
