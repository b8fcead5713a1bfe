/**
 * @module The one door between test/ and bench/ (issue 31): the helpers both use, and the only test/
 * module bench/ may import (eslint.config.js enforces it; test/ imports nothing from bench/). A bench
 * that needs another helper adds it here, so what the two share stays a short, visible list.
 */
export { prng } from './prng.ts';
export { freePort } from './free-port.ts';
export { TEST_ADMIN_KEY, keyHeaders } from './keys.ts';
export { childrenOf, isPostgres } from './processes.ts';
export {
  embeddedDataDir,
  externalDatabase,
  ownDatabase,
  runDatabase,
  type OwnPostgres,
  type RunDatabase,
} from './run-databases.ts';
export {
  ROOT,
  spawnServer,
  spawnVigil,
  stopServer,
  type ServerProcess,
} from './service-process.ts';
export { NO_NATS_SERVER, natsServerPath, startNatsServer } from './nats-server.ts';
export { NO_CHROMIUM, chromiumPath, openBrowser } from './browser.ts';
export { buildDashboard } from './dashboard-build.ts';
export { runCrash, type CrashKind, type CrashResult } from './reliability/crash.ts';
export { fuzzProblems, headWithBody, runFuzz } from './reliability/fuzz-run.ts';
export {
  brokenPromises,
  checkStored,
  startIngestLoad,
  type IngestReport,
} from './reliability/ingest-load.ts';
export { runOutage, type OutageResult } from './reliability/outage.ts';
export { runOverloadStep, type OverloadStep } from './reliability/overload.ts';
export { mib, percentile, probeHealth, startSampler } from './reliability/probes.ts';
export {
  runCheckpointCost,
  runReplay,
  type CostRun,
  type ReplayRun,
} from './reliability/restart-bench.ts';
export { runShutdown, type ShutdownResult } from './reliability/shutdown.ts';
export { runWsAbuse } from './reliability/ws-abuse.ts';
export { subscribe } from './reliability/ws-clients.ts';
export { LOGIN_CONFIG, detailedEvent } from '../domain/rules/kinds/pattern/fixtures.ts';
