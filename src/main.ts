/**
 * @module Entry point: configuration, the service, and signals. SIGINT/SIGTERM drain and exit 0;
 * a second signal or the grace deadline forces exit 1.
 */
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './log.ts';
import { startService } from './service.ts';

let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
const log = createLogger(config.LOG_LEVEL, 'main');
const service = await startService(config, log).catch((error: unknown) => {
  log.fatal({ err: error }, 'start-up failed');
  process.exit(1);
});

const grace = config.SHUTDOWN_GRACE_MS;
let signalled = false;
const onSignal = (signal: NodeJS.Signals): void => {
  if (signalled) {
    log.warn({ signal }, 'second signal: exiting now');
    process.exit(1);
  }
  signalled = true;
  log.info({ signal, graceMs: grace }, 'shutting down');
  setTimeout(() => {
    log.error('grace period over: exiting now');
    process.exit(1);
  }, grace).unref();
  service.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
