/**
 * @module Entry point: configuration, the native uWS build, the service, and signals. SIGINT/SIGTERM
 * drain and exit 0 (the front, then the threads, then the embedded PostgreSQL: service.ts stop());
 * a second signal or the grace deadline forces exit 1.
 */
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './log.ts';
import { loadedUwsBuild, nativeUws } from './http/uws.ts';
import { startService, type RunningService } from './service.ts';

let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
const log = createLogger(config.LOG_LEVEL, 'main');
// Before anything starts (an embedded PostgreSQL above all): no native uWS build for this Node and
// glibc is a plain message naming what to install, not a failed start to undo.
try {
  nativeUws();
} catch (error) {
  log.fatal((error as Error).message);
  process.exit(1);
}
log.info({ node: process.version, uws: loadedUwsBuild() }, 'starting');

const grace = config.SHUTDOWN_GRACE_MS;
/**
 * Under `npm start`, one Ctrl-C arrives twice: from the terminal (to the whole foreground group)
 * and forwarded by npm. A repeat this soon after the first is that copy, not a second signal.
 */
const SAME_SIGNAL_MS = 500;
let signalledAt: number | null = null;
let service: RunningService | null = null;

const stop = (running: RunningService): void => {
  running.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    },
  );
};
const onSignal = (signal: NodeJS.Signals): void => {
  const now = performance.now();
  if (signalledAt !== null) {
    if (now - signalledAt < SAME_SIGNAL_MS) return;
    log.warn({ signal }, 'second signal: exiting now');
    process.exit(1);
  }
  signalledAt = now;
  log.info({ signal, graceMs: grace }, 'shutting down');
  setTimeout(() => {
    log.error('grace period over: exiting now');
    process.exit(1);
  }, grace).unref();
  // A signal during start-up stops the service as soon as it has started.
  if (service !== null) stop(service);
};
// Before start-up: a signal then must not kill the process outright, leaving the embedded
// PostgreSQL (in a process group of its own) behind.
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

service = await startService(config, log).catch((error: unknown) => {
  log.fatal({ err: error }, 'start-up failed');
  process.exit(1);
});
if (signalledAt !== null) stop(service);
